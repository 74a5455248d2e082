/**
 * Every team screen reads the team's journal first (issue 37 item 2;
 * docs/decisions/team-screens-read-the-journal-first.md). Two desktops on one throwaway PostgreSQL
 * workspace, each with its own local sandbox engine: A (fatou, finance) pays two payouts, one
 * failed at the service (PAYER_NOT_FOUND), one still processing. B (samuel, support) never sent
 * them and its engine does not know them: Look up finds both in the team's journal and says so,
 * Reconcile files them from the team's journal (never "missing at the service", their transaction
 * ids in the CSV report), and the Overview counts the team's payouts and says "the team's journal".
 */
import { describe, expect, it } from 'vitest';
import type { JournalTransaction } from '../../shared/api';
import { english } from '../../shared/i18n/english';
import { french } from '../../shared/i18n/french';
import type { TransactionRequest } from '../../shared/contract';
import { expectOk, nextEvent, paymentRequest } from './helpers';
import { createAtService, merchantClient, reconcile, request, type Runtime } from './reconcile-fixtures';
import { useWorkspaceConsoles, type TestConsole } from './workspace-consoles';
import { FAILING } from './never-twice-helpers';

const team = useWorkspaceConsoles();
const DAY = 86_400_000;

/** A payout the team sent through another sandbox profile (kofi's, on a team profile): written as his login would. */
async function teamProfilePayout(id: string, state: 'known' | 'outcome_unknown'): Promise<void> {
  const sql = await team.workspaces.connectAs('kofi', team.database);
  try {
    await sql.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, transaction_id, status, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES ($1, 'team-sandbox', 'Team sandbox', 'sandbox', 'payout', $2, $3, $4, $5, 900, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', $6, $6)`,
      [id, state, `EXT-${id}`, state === 'known' ? `TE_${id}` : null, state === 'known' ? 'processing' : null, Date.now()],
    );
  } finally {
    await sql.end();
  }
}

async function pay(desk: TestConsole, overrides: Partial<TransactionRequest>): Promise<JournalTransaction> {
  const request = paymentRequest(overrides);
  const quote = expectOk(await desk.handlers['payouts:prepare']({ request }));
  return expectOk(await desk.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
}

/** Settles a payout at A's engine and waits for A's console to read the outcome. */
async function settle(desk: TestConsole, sent: JournalTransaction): Promise<JournalTransaction> {
  const done = nextEvent(desk, 'watch:progress', (p) => p.journalId === sent.id && p.done);
  expectOk(await desk.handlers['sandbox:settle']({ transactionId: sent.transactionId! }));
  await done;
  return expectOk(await desk.handlers['transactions:get']({ journalId: sent.id })).transaction;
}

describe('a payout known to the team', () => {
  it('is found by Look up, matched by Reconcile and counted by the Overview on a colleague’s desktop, each saying the team’s journal', async () => {
    const a = await team.consoleOf('fatou');
    const failed = await settle(a, await pay(a, { external_id: 'TEAM-FAILED', phone_number: FAILING, amount: 1200 }));
    expect(failed).toMatchObject({ status: 'failed', failedCode: 'PAYER_NOT_FOUND' });
    const processing = await pay(a, { external_id: 'TEAM-PROCESSING', phone_number: '+237650000001', amount: 3400 });
    expect(processing).toMatchObject({ state: 'known', status: 'processing' });
    const createdAt = Date.parse(processing.createdAt);
    await team.close(a);

    const b = (await team.consoleOf('samuel')) as TestConsole & Runtime;
    // B's own engine never saw them: asking it alone would say "not found".
    const bEngine = await b.handlers['transactions:lookup']({ id: 'TEAM-NOT-SENT', by: 'external_id', kind: 'payout' });
    expect(expectOk(bEngine).found).toBe(false);

    // B's engine holds a payout of its own with A's processing one's external id: never taken for the team's.
    await createAtService(b, merchantClient(b), 'payout', request('TEAM-PROCESSING', 3400, '+237650000001'));
    // kofi's payouts on a team profile: B reconciles its local sandbox, which does not know them.
    await teamProfilePayout('kofi-known', 'known');
    await teamProfilePayout('kofi-unknown', 'outcome_unknown');

    // Look up, by external id and by transaction id: the team's journal answers first, and says so.
    for (const [entry, by, id] of [
      [failed, 'external_id', 'TEAM-FAILED'],
      [processing, 'external_id', 'TEAM-PROCESSING'],
      [failed, 'transaction_id', failed.transactionId!],
      [processing, 'transaction_id', processing.transactionId!],
    ] as const) {
      const found = expectOk(await b.handlers['transactions:lookup']({ id, by, kind: 'payout' }));
      expect(found).toMatchObject({ found: true, source: 'team_journal', transaction: { id: entry.id, status: entry.status, externalId: entry.externalId } });
    }
    expect(expectOk(await b.handlers['transactions:lookup']({ id: 'EXT-kofi-known', by: 'external_id', kind: 'payout' }))).toMatchObject({ found: true, source: 'team_journal', transaction: { id: 'kofi-known' } });
    // The kind still counts: a payout is not a payment.
    expect(expectOk(await b.handlers['transactions:lookup']({ id: 'TEAM-FAILED', by: 'external_id', kind: 'payment' })).found).toBe(false);
    expect(expectOk(await b.handlers['transactions:lookup']({ id: failed.transactionId!, by: 'transaction_id', kind: 'payment' })).found).toBe(false);
    // Looking up changed nothing in the team's journal.
    expect(await team.stateOf(failed.id)).toBe('known');
    expect(await team.stateOf(processing.id)).toBe('known');

    // Reconcile on B: both from the team's journal, neither missing; their transaction ids in the export.
    const summary = await reconcile(b, ['external_id,kind,amount,expected_status', 'TEAM-FAILED,payout,1200,failed', 'TEAM-PROCESSING,payout,3400,', 'EXT-kofi-known,payout,900,', 'EXT-kofi-unknown,payout,900,', 'TEAM-NEVER,payout,10,'].join('\n'));
    expect(summary).toMatchObject({ status: 'done', totalRows: 5, checkedRows: 5 });
    const rows = expectOk(await b.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 10 })).rows;
    expect(rows.map((row) => [row.externalId, row.category, row.journalId, row.transactionId])).toEqual([
      ['TEAM-FAILED', 'matched', failed.id, failed.transactionId],
      ['TEAM-PROCESSING', 'processing_recent', processing.id, processing.transactionId],
      ['EXT-kofi-known', 'processing_recent', 'kofi-known', 'TE_kofi-known'],
      ['EXT-kofi-unknown', 'not_checked', 'kofi-unknown', null],
      ['TEAM-NEVER', 'missing_at_service', null, null],
    ]);
    expect(rows.slice(0, 4).map((row) => row.detail?.startsWith('TEAM_JOURNAL:') ?? false)).toEqual([false, true, true, true]);
    expect(summary.categories.missing_at_service.count).toBe(1);
    const csv = expectOk(await b.handlers['reconcile:export']({ id: summary.id, language: 'en' })).csv;
    const line = csv.split('\r\n').find((text) => text.includes('TEAM-PROCESSING'))!;
    expect(line).toContain(processing.transactionId!);
    expect(line).toContain(english.reconcile.detail.teamJournal);

    // The Overview: the team's payouts (A's two), and the words say whose journal.
    const today = Math.floor(createdAt / DAY) * DAY;
    const dayBoundaries = Array.from({ length: 8 }, (_, i) => new Date(today + (i - 6) * DAY).toISOString());
    const overview = expectOk(await b.handlers['overview:get']({ dayBoundaries }));
    expect(overview.journal).toBe('team');
    expect(overview.today.total).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 4600 }] });
  }, 120_000);

  it('says "the team’s journal" in English and in French', () => {
    expect(english.overview.introTeam).toContain('from the team’s journal');
    expect(french.overview.introTeam).toContain('journal de l’équipe');
    expect(english.transaction.foundIn.team_journal).toMatch(/^Found in the team’s journal/);
    expect(french.transaction.foundIn.team_journal).toMatch(/^Trouvée dans le journal de l’équipe/);
  });
});
