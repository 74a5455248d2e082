/**
 * Bulk payouts on the built-in local sandbox: import (errors per cell, duplicates, same file
 * twice), fixing and dropping rows, preview against the wallet, the confirmation bound to a hash
 * of every row, sending, the rows as journal entries, rehearsal, and the report.
 */
import { rmSync } from 'node:fs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFail, expectOk, startRuntime } from './helpers';
import { BATCH_HEADER, batchCsv, batchReaches, withRows } from './batch-helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime({ engine: { settleMs: 0 }, watch: { initialDelayMs: 500, maxDelayMs: 500, limitMs: 1 } });
});

afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const handlers = () => runtime.handlers;

describe('importing a batch file', () => {
  it('checks every row, flags duplicates, lets the user fix a cell and drop a row, and exports the invalid rows', async () => {
    const text = [
      BATCH_HEADER,
      '+237650000001,5000,Awa,Nkemdirim,awa@example.com,October,',
      '+237650000001,5000,Awa,Nkemdirim,awa@example.com,October again,',
      '+23765,abc,Jean,Mbarga,jean@example.com,,',
      '+237650000002,700,Paul,Biya,not-an-email,,',
    ].join('\r\n');
    const detail = await withRows(handlers(), expectOk(await handlers()['batches:import']({ fileName: 'october.csv', text, paymentMethod: 'momo_cm' })));
    expect(detail.batch).toMatchObject({ state: 'draft', fileName: 'october.csv', profileName: 'Local sandbox', environment: 'sandbox' });
    expect(detail.batch.counts).toMatchObject({ rows: 4, valid: 2, invalid: 2, duplicates: 2 });
    expect(detail.rows.map((row) => row.rowNumber)).toEqual([2, 3, 4, 5]);
    expect(detail.rows[0]!.externalId).toBe(`${detail.batch.id}-2`);
    expect(detail.rows[0]!.duplicates).toEqual([{ reason: 'phone_amount', rowNumbers: [3] }]);
    expect(detail.rows[2]!.errors).toMatchObject({ amount: ['must be a number'], phone_number: [expect.stringContaining('country code')] });
    expect(detail.rows[3]!.errors).toEqual({ email: ['must be a valid email address'] });

    const invalid = expectOk(await handlers()['batches:invalidRows']({ batchId: detail.batch.id, language: 'fr' }));
    expect(invalid.rows).toBe(2);
    const cells = Papa.parse<string[]>(invalid.csv.slice(1), { delimiter: ';', skipEmptyLines: true }).data;
    expect(cells[0]).toEqual(['ligne', 'telephone', 'montant', 'prenom', 'nom', 'email', 'description', 'reference_externe', 'moyen_de_paiement', 'erreurs']);
    // The formula guard marks a leading + (import removes the mark again).
    expect(cells[1]!.slice(0, 3)).toEqual(['4', "'+23765", 'abc']);

    const fixed = await withRows(handlers(), expectOk(await handlers()['batches:updateRow']({ batchId: detail.batch.id, rowNumber: 5, values: { email: 'paul@example.com', 'meta.agent': 'A-7' } })));
    expect(fixed.rows[3]!.errors).toEqual({});
    expect(fixed.rows[3]!.request).toMatchObject({ customer: { email: 'paul@example.com' }, metadata: { agent: 'A-7' } });
    expectFail(await handlers()['batches:updateRow']({ batchId: detail.batch.id, rowNumber: 5, values: { colour: 'red' } }), 'INVALID_INPUT');
    expectFail(await handlers()['batches:updateRow']({ batchId: detail.batch.id, rowNumber: 99, values: { amount: '1' } }), 'NOT_FOUND');

    const dropped = await withRows(handlers(), expectOk(await handlers()['batches:dropRows']({ batchId: detail.batch.id, rowNumbers: [3, 4] })));
    expect(dropped.rows.map((row) => row.rowNumber)).toEqual([2, 5]);
    expect(dropped.batch.counts).toMatchObject({ rows: 2, valid: 2, invalid: 0, duplicates: 0 });
    expect(dropped.batch.totalAmount).toBe(5700);
  });

  it('refuses a file it cannot read with every reason, and stores nothing', async () => {
    const before = expectOk(await handlers()['batches:list']({})).batches.length;
    const failure = expectFail(await handlers()['batches:import']({ fileName: 'bad.csv', text: 'mobile_phone,amount\n+237650000001,5\n' }), 'INVALID_INPUT');
    expect(failure.fields?.text).toEqual(expect.arrayContaining(['the column phone_number is missing', expect.stringContaining('"mobile_phone" is not a known column')]));
    expect(expectOk(await handlers()['batches:list']({})).batches.length).toBe(before);
  });
});

describe('confirming and sending', () => {
  it('previews fees and balance, binds the confirmation to every row, and sends each row once as a journal entry', async () => {
    const text = batchCsv(6, { phone: () => '+237650000001', amount: (index) => 1000 * (index + 1), tag: 'Bound' });
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'bound.csv', text, paymentMethod: 'momo_cm' }));
    const preview = expectOk(await handlers()['batches:preview']({ batchId: batch.id }));
    // Fees of the default seed: 1 % + 50 per payout.
    const fees = [1, 2, 3, 4, 5, 6].reduce((sum, n) => sum + Math.round(n * 1000 * 0.01) + 50, 0);
    expect(preview).toMatchObject({ count: 6, totalAmount: 21_000, feesKnown: true, totalFees: fees, totalDebit: 21_000 + fees, overBalance: false, currency: 'XAF' });
    expect(preview.balance).toBeGreaterThan(21_000);

    const confirmation = expectOk(await handlers()['batches:prepare']({ batchId: batch.id }));
    expect(confirmation.batchHash).toMatch(/^[0-9a-f]{64}$/);
    // A changed row after the confirmation: the token no longer fits.
    expectOk(await handlers()['batches:updateRow']({ batchId: batch.id, rowNumber: 7, values: { amount: '6001' } }));
    expectFail(await handlers()['batches:start']({ batchId: batch.id, confirmationToken: confirmation.confirmationToken }), 'CONFIRMATION_REQUIRED');
    const again = expectOk(await handlers()['batches:prepare']({ batchId: batch.id }));
    expect(again.batchHash).not.toBe(confirmation.batchHash);

    const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
    const started = expectOk(await handlers()['batches:start']({ batchId: batch.id, confirmationToken: again.confirmationToken, concurrency: 2 }));
    expect(started.state).toBe('sending');
    // Single use: the same token cannot start it twice.
    expectFail(await handlers()['batches:start']({ batchId: batch.id, confirmationToken: again.confirmationToken }), 'CONFIRMATION_REQUIRED');
    expect((await done).state).toBe('done');

    const detail = await withRows(handlers(), batch.id);
    expect(detail.batch.counts).toMatchObject({ accepted: 6, notSent: 0, unknown: 0, rejected: 0 });
    expect(detail.batch.concurrency).toBe(2);
    for (const row of detail.rows) {
      const entry = expectOk(await handlers()['transactions:get']({ journalId: row.journalId! }));
      expect(entry.transaction).toMatchObject({ kind: 'payout', externalId: row.externalId, batch: { batchId: batch.id, rowNumber: row.rowNumber } });
      expect(entry.timeline.at(-1)).toMatchObject({ type: 'request_sent' });
    }
    const engineRows = engineInternals(runtime.engine!).db.prepare(`SELECT external_id, amount FROM transactions WHERE external_id LIKE ? ORDER BY external_id`).all(`${batch.id}-%`);
    expect(engineRows).toHaveLength(6);
    expect(engineRows).toContainEqual({ external_id: `${batch.id}-7`, amount: 6001 });
    // A batch that has started is no longer a draft.
    expectFail(await handlers()['batches:updateRow']({ batchId: batch.id, rowNumber: 2, values: { amount: '1' } }), 'CONFLICT');
    expectFail(await handlers()['batches:prepare']({ batchId: batch.id }), 'CONFLICT');

    const report = expectOk(await handlers()['batches:report']({ batchId: batch.id, language: 'en' }));
    const lines = Papa.parse<string[]>(report.csv.slice(1), { skipEmptyLines: true }).data;
    expect(lines[0]!.slice(0, 4)).toEqual(['row', 'external_id', 'phone_number', 'amount']);
    expect(lines).toHaveLength(7);
    expect(lines[1]!.slice(0, 3)).toEqual(['2', `${batch.id}-2`, "'+237650000001"]);

    // The same file again: flagged, and confirming it needs an explicit yes.
    const twice = expectOk(await handlers()['batches:import']({ fileName: 'bound-again.csv', text, paymentMethod: 'momo_cm' }));
    expect(twice.importedBefore).toEqual([expect.objectContaining({ batchId: batch.id, state: 'done' })]);
    const duplicate = expectFail(await handlers()['batches:prepare']({ batchId: twice.batch.id }), 'CONFIRMATION_REQUIRED');
    expect(duplicate.fields?.acceptDuplicateFile).toBeDefined();
    expectOk(await handlers()['batches:prepare']({ batchId: twice.batch.id, acceptDuplicateFile: true }));
  });

  it('refuses a batch over the wallet balance before anything is sent', async () => {
    const balance = runtime.engine!.control.walletBalance(runtime.engine!.api.applications()[0]!.id, 'sandbox');
    const text = batchCsv(2, { phone: () => '+237650000001', amount: () => Math.ceil(balance / 2), tag: 'Too much' });
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'big.csv', text, paymentMethod: 'momo_cm' }));
    expect(expectOk(await handlers()['batches:preview']({ batchId: batch.id })).overBalance).toBe(true);
    expectFail(await handlers()['batches:prepare']({ batchId: batch.id }), 'INSUFFICIENT_FUNDS');
    expect(engineInternals(runtime.engine!).db.prepare(`SELECT COUNT(*) AS n FROM transactions WHERE external_id LIKE ?`).get(`${batch.id}-%`)).toEqual({ n: 0 });
  });

  it('rehearses on a throwaway copy of the local sandbox, shows the rows that would fail, and leaves the sandbox as it was', async () => {
    const appId = runtime.engine!.api.applications()[0]!.id;
    const text = batchCsv(10, { tag: 'Rehearsed' });
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'rehearse.csv', text, paymentMethod: 'momo_cm' }));
    const before = runtime.engine!.control.walletBalance(appId, 'sandbox');
    const summary = expectOk(await handlers()['batches:rehearse']({ batchId: batch.id }));
    expect(summary).toMatchObject({ rows: 10, accepted: 10, rejected: 0 });
    // 02, 03, 04, 05, 06, 07 fail, 09 is cancelled; 01, 08 (after Verify) and the ordinary number complete.
    expect(summary.wouldFail).toBe(7);
    expect(runtime.engine!.control.walletBalance(appId, 'sandbox')).toBe(before);
    const detail = await withRows(handlers(), batch.id);
    expect(detail.rows.map((row) => row.rehearsal?.status)).toEqual(['completed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'completed', 'cancelled', 'completed']);
    expect(detail.rows[3]!.rehearsal).toMatchObject({ failedCode: 'EXPIRED', wouldFail: true });
    expect(detail.batch.counts.notSent).toBe(10);
    expect(detail.rows.every((row) => row.journalId === null)).toBe(true);
    // The copy is the rehearsal's own (test/console/rehearsal-isolated.test.ts): the user's sandbox has none of its transactions.
    expect(engineInternals(runtime.engine!).db.prepare(`SELECT COUNT(*) AS n FROM transactions WHERE external_id LIKE ?`).get(`%${batch.id}-%`)).toEqual({ n: 0 });
  });
});
