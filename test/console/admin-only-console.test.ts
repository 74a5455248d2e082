/**
 * A console opened as an admin-only login (adele: admin, neither finance nor support) on a
 * throwaway team workspace (issue 25; docs/decisions/start-up-by-role.md). Before, its start failed
 * on `markStalePending` (no right to lock entries). Now it opens while a colleague's stale entry, a
 * crashed batch and an open follow-up wait, touches none of them (a finance desktop's start does),
 * reads Reconcile's list, edits the approval policy and reads the audit log. And the Audit screen's
 * change events: a line another login writes reaches this console as `journal:changed` naming it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JournalChanged } from '../../shared/api/push-events';
import { insertPayoutEntry } from '../storage/approval-helpers';
import { batchCsv } from './batch-helpers';
import { expectOk, nextEvent } from './helpers';
import { useWorkspaceConsoles } from './workspace-consoles';

const team = useWorkspaceConsoles();
const { consoleOf, close, stateOf } = team;

describe('an admin-only login', () => {
  it('opens the console with a colleague’s work left behind, touches none of it, and a finance desktop’s start does', async () => {
    // What fatou's desktop left when it stopped: a batch that was sending, a payout in flight, a payment whose outcome is unknown.
    const maker = await consoleOf('fatou');
    const imported = expectOk(await maker.handlers['batches:import']({ fileName: 'crashed.csv', text: batchCsv(2), paymentMethod: 'momo_cm' }));
    await close(maker);
    const fatou = await team.workspaces.connectAs('fatou', team.database);
    await fatou.query(`UPDATE batches SET state = 'sending' WHERE id = $1`, [imported.batch.id]);
    await insertPayoutEntry(fatou, 'stale-payout-2', 5_000, 'ADM-STALE-2');
    await fatou.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES ('unknown-payment', 'local-sandbox', 'Local sandbox', 'sandbox', 'payment', 'outcome_unknown', 'ADM-UNKNOWN-1', 700, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', 1, 1)`,
    );
    await fatou.end();

    const adele = await consoleOf('adele');
    await adele.followUpsIdle();
    const info = expectOk(await adele.handlers['app:info']({}));
    expect((info.notices ?? []).map((notice) => notice.code)).toEqual([]);
    expect(await stateOf('stale-payout-2')).toBe('pending');
    expect(await stateOf(imported.batch.id, 'batches')).toBe('sending');
    expect(await stateOf('unknown-payment')).toBe('outcome_unknown');
    // No follow-up was tried (the database would have refused its write: a warning in the log).
    expect(readFileSync(adele.logPath, 'utf8')).not.toContain('follow-up');

    // Reconcile's list reads (the start-up clean-up of unfinished imports is not this login's).
    expect(expectOk(await adele.handlers['reconcile:list']({})).reconciliations).toEqual([]);
    // The policy: read, a change asked, and the ask in the audit log under adele's login (a second admin applies it: migration 46).
    expect(expectOk(await adele.handlers['approvals:status']({}))).toEqual({ available: true, login: 'adele', roles: ['admin'] });
    const asked = expectOk(await adele.handlers['people:askPolicy']({ environment: 'sandbox', currency: 'XAF', tiers: [{ minAmount: 50_000, approvals: 1, approverRole: 'finance' }] }));
    expect(asked).toMatchObject({ kind: 'policy', state: 'awaiting', requestedBy: 'adele' });
    // Newest first: the ask over adele's sign-in and fatou's import, sign-in and the rest (migration 34).
    const audit = expectOk(await adele.handlers['audit:list']({}));
    expect(audit.entries.slice(0, 2).map((entry) => [entry.actor, entry.action, entry.subject])).toEqual([
      ['adele', 'change_request', `change:${asked.id}`],
      ['adele', 'sign_in', 'adele'],
    ]);
    const tester = await team.workspaces.connectAs('tester', team.database);
    await tester.query('SELECT paydesk_approve_change($1)', [asked.id]);
    await tester.end();
    expect(expectOk(await adele.handlers['approvals:policy']({})).tiers.map((tier) => [tier.minAmount, tier.updatedBy])).toEqual([[50_000, 'tester']]);
    await close(adele);

    // A finance desktop's start does what adele's left: the crashed batch is interrupted. fatou's unknown
    // payment was made in her desktop's local sandbox: only her desktop follows it up (local-sandbox-follow-ups.md).
    const kofi = await consoleOf('kofi');
    await kofi.followUpsIdle();
    expect(await stateOf(imported.batch.id, 'batches')).toBe('interrupted');
    expect(await stateOf('unknown-payment')).toBe('outcome_unknown');
    // A payout in flight stays its maker's: only fatou's own start marks it.
    expect(await stateOf('stale-payout-2')).toBe('pending');
    await close(kofi);
  }, 60_000);

  it('hears another login’s audit line as a change naming it (the Audit screen reads again on it)', async () => {
    const adele = await consoleOf('adele');
    const heard = nextEvent(adele, 'journal:changed', (changed: JournalChanged) => changed.audit.length > 0);
    await adele.storage.changes.ready();
    const kofi = await team.workspaces.connectAs('kofi', team.database);
    const { rows } = await kofi.query(`SELECT paydesk_audit('sign_in', 'kofi') AS id`);
    await kofi.end();
    const changed = await heard;
    expect(changed.audit).toEqual([String(rows[0].id)]);
    expect(changed.approvals).toEqual([]);
    await close(adele);
  }, 30_000);
});
