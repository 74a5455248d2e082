/**
 * History's CSV export through the console (issue 15 item 9): the one writer (every cell quoted,
 * formulas guarded) and the "not charged" rule the screen shows for a failed payout.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, paymentRequest, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime();
});
afterAll(async () => {
  await runtime.close();
});

async function payout(phone: string, externalId: string, description: string) {
  const request = paymentRequest({ phone_number: phone, external_id: externalId, description });
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  const sent = expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
  expectOk(await runtime.handlers['sandbox:settle']({ transactionId: sent.transactionId! }));
  // Verify reads the whole transaction, fee included, into the journal.
  return expectOk(await runtime.handlers['transactions:verify']({ journalId: sent.id })).transaction;
}

describe('History CSV export', () => {
  it('gives a failed payout no fee and no net amount, a completed one both; quotes every cell and guards formulas', async () => {
    const failed = await payout('+237650000002', 'CSV-FAILED-1', 'sep;=2+5;x');
    const completed = await payout('+237650000001', 'CSV-DONE-1', '=HYPERLINK("https://evil.example",\n"open")');
    expect(failed.status).toBe('failed');
    expect(completed.status).toBe('completed');
    // The service does report a fee for the failed one: the export must not show it as charged.
    expect(failed.fee).toBeGreaterThan(0);

    const exported = expectOk(await runtime.handlers['transactions:export']({ query: { kind: 'payout' } }));
    expect(exported.csv.startsWith('\uFEFF"')).toBe(true);
    const [header, ...rows] = Papa.parse<string[]>(exported.csv.slice(1), { skipEmptyLines: true }).data;
    const column = (name: string) => header!.indexOf(name);
    const row = (externalId: string) => rows.find((cells) => cells[column('external_id')] === externalId)!;
    expect([row('CSV-FAILED-1')[column('fee')], row('CSV-FAILED-1')[column('net_amount')]]).toEqual(['', '']);
    expect(Number(row('CSV-DONE-1')[column('fee')])).toBeGreaterThan(0);
    expect(row('CSV-DONE-1')[column('net_amount')]).not.toBe('');
    expect(row('CSV-DONE-1')[column('description')]).toBe(`'=HYPERLINK("https://evil.example",\n"open")`);
    expect(row('CSV-DONE-1')[column('phone_number')]).toBe("'+237650000001");
    expect(exported.csv).toContain(`"sep;'=2+5;x"`);
    // Every line of the file (the continuation of a multi-line cell too) starts with a quote.
    expect(exported.csv.slice(1).split(/\r?\n/).filter((line) => line !== '' && !line.startsWith('"'))).toEqual([]);
  });
});
