/**
 * A colleague's `local-sandbox` entries on a team workspace (issue 24/25; docs/decisions/local-sandbox-follow-ups.md):
 * each desktop runs its own local engine, so kofi's desktop never follows up fatou's local-sandbox
 * entries (its engine would answer "not found" and mark them so), and Verify, Look up by external id
 * and Resend on one of them say that it lives in fatou's desktop's sandbox. kofi's own local-sandbox
 * entry and fatou's entry on a team profile are still followed up (the filter is no wider).
 */
import { describe, expect, it } from 'vitest';
import { english } from '../../shared/i18n/english';
import { french } from '../../shared/i18n/french';
import type { Person } from '../helpers/workspace';
import { expectFail, expectOk, paymentRequest } from './helpers';
import { useWorkspaceConsoles } from './workspace-consoles';

const team = useWorkspaceConsoles();
const { consoleOf, close, stateOf } = team;

/** An outcome-unknown payment written by `person`'s login, on `profileId`, last changed long ago. */
async function unknownPayment(person: Person, id: string, profileId: string): Promise<void> {
  const sql = await team.workspaces.connectAs(person, team.database);
  try {
    await sql.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES ($1, $2, 'A profile', 'sandbox', 'payment', 'outcome_unknown', $3, 700, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', 1, 1)`,
      [id, profileId, `EXT-${id}`],
    );
  } finally {
    await sql.end();
  }
}

describe('a colleague’s local-sandbox entries', () => {
  it('are left to their desktop: not followed up, and Verify / Look up / Resend say where they live', async () => {
    // fatou pays on her desktop's local sandbox (settling takes an hour: it stays processing).
    const fatou = await consoleOf('fatou');
    const paid = expectOk(await fatou.handlers['payments:create']({ request: paymentRequest({ external_id: 'FATOU-LOCAL-1' }) }));
    expect(paid.profileId).toBe('local-sandbox');
    await close(fatou);
    await unknownPayment('fatou', 'fatou-unknown', 'local-sandbox');
    await unknownPayment('fatou', 'fatou-team', 'team-sandbox');
    await unknownPayment('kofi', 'kofi-unknown', 'local-sandbox');

    // The port hands kofi's sweeper his own local-sandbox entry and fatou's team-profile one, not fatou's local ones.
    const open = await team.workspaces.storeAs('kofi', team.database).sweeper.openEntries(Number.MAX_SAFE_INTEGER, 100);
    expect(open.map((entry) => entry.id).sort()).toEqual(['fatou-team', 'kofi-unknown']);

    const kofi = await consoleOf('kofi');
    await kofi.followUpsIdle();
    // His own local-sandbox entry is followed up on his engine (it was never sent there): not found.
    expect(await stateOf('kofi-unknown')).toBe('outcome_unknown/not_found');
    // fatou's stay as they were.
    expect(await stateOf('fatou-unknown')).toBe('outcome_unknown');
    expect(await stateOf(paid.id)).toBe('known');

    const verify = expectFail(await kofi.handlers['transactions:verify']({ journalId: paid.id }), 'SANDBOX_ELSEWHERE');
    expect(verify.message).toContain('fatou');
    expectFail(await kofi.handlers['transactions:resolveUnknown']({ journalId: 'fatou-unknown' }), 'SANDBOX_ELSEWHERE');
    expectFail(await kofi.handlers['transactions:resend']({ journalId: 'fatou-unknown' }), 'SANDBOX_ELSEWHERE');
    expect(await stateOf('fatou-unknown')).toBe('outcome_unknown');
    // Reading it is still everyone's.
    expect(expectOk(await kofi.handlers['transactions:get']({ journalId: paid.id })).transaction.externalId).toBe('FATOU-LOCAL-1');
    await close(kofi);

    // fatou's own desktop still follows her entries up.
    const back = await consoleOf('fatou');
    await back.followUpsIdle();
    expect(await stateOf('fatou-unknown')).toBe('outcome_unknown/not_found');
    await close(back);
  }, 90_000);

  it('says so in English and in French', () => {
    expect(english.errors.SANDBOX_ELSEWHERE.title).toMatch(/colleague’s desktop/);
    expect(french.errors.SANDBOX_ELSEWHERE.title).toMatch(/poste d’un collègue/);
  });
});
