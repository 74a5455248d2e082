/**
 * Reconcile reads what people's files hold (issue 37, item 5), against the real engine, journal
 * file and channels: an amount written with grouping spaces (`45 000`) is read as bulk payouts read
 * it, and one external id twice in the merchant's file is not a refusal of the whole file but a
 * finding of the report, "Duplicate in your records", naming both lines, in English and French and
 * in the report's CSV. The earlier line is checked as any other; the later one is never looked up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectOk } from './helpers';
import { closeRuntime, createAtService, merchantClient, reconcile, request, settleViaControlApi, startEngineTimeRuntime, type Runtime } from './reconcile-fixtures';
import { parseMerchantFile } from '../../electron/console/reconcile/parse';
import { parseAmount } from '../../shared/batch/validate';

let runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.reverse()) await closeRuntime(runtime);
  runtimes = [];
});

describe('the merchant file as people write it', () => {
  it('reads grouped amounts as bulk payouts do, and still refuses decimals', async () => {
    const parsed = await parseMerchantFile('external_id;kind;amount\nord-1;payment;45 000\nord-2;payout;1\u00a0250\u202f000\n', 0);
    expect(parsed.ok && parsed.rows.map((row) => row.amount)).toEqual([45000, 1250000]);
    expect(parseAmount('45 000')).toEqual({ ok: true, amount: 45000 });
    const decimals = await parseMerchantFile('external_id;kind;amount\nord-1;payment;45 000,50\n', 0);
    expect(decimals.ok === false && decimals.errors.map((e) => `${e.row}/${e.column}/${e.code}`)).toEqual(['2/amount/amount_format']);
  });

  it('keeps one external id twice as rows of the file, the later naming the earlier', async () => {
    const parsed = await parseMerchantFile('external_id,kind,amount\nord-1,payment,100\nord-1,payout,100\nord-1,payment,100\n', 0);
    expect(parsed.ok && parsed.rows.map((row) => [row.row, row.kind, row.duplicateOf])).toEqual([[2, 'payment', null], [3, 'payout', null], [4, 'payment', 2]]);
  });
});

describe('a duplicate in the merchant\'s records on the report', () => {
  it('files the later line as "Duplicate in your records" with both lines named, matches the earlier, in both languages and the CSV', async () => {
    const runtime = await startEngineTimeRuntime();
    runtimes.push(runtime);
    const merchant = merchantClient(runtime);
    const paid = await createAtService(runtime, merchant, 'payment', request('ord-45', 45000, '+237650000001'));
    await settleViaControlApi(runtime, paid);
    await merchant.close();

    const file = 'external_id,kind,amount,expected_status\nord-45,payment,"45 000",paid\nord-45,payment,45000,paid\n';
    const summary = await reconcile(runtime, file);
    expect(summary.status).toBe('done');
    expect(summary.checkedRows).toBe(2);
    expect(summary.categories.matched).toEqual({ count: 1, amount: 45000, serviceAmount: 45000 });
    expect(summary.categories.duplicate_in_records).toEqual({ count: 1, amount: 45000, serviceAmount: 0 });

    const rows = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 10 })).rows;
    expect(rows.map((row) => [row.row, row.category, row.transactionId, row.detail])).toEqual([
      [2, 'matched', paid, null],
      [3, 'duplicate_in_records', null, 'duplicate of row 2'],
    ]);

    const english = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, category: 'duplicate_in_records', language: 'en' }));
    expect(english.csv.split('\r\n')[1]).toBe(
      '"3","ord-45","payment","45000","paid","","Duplicate in your records","","","","XAF","duplicate of row 2, same external id (row 2 was checked, this one was not)"',
    );
    const french = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, language: 'fr' }));
    const line = french.csv.split('\r\n').find((text) => text.startsWith('"3",'))!;
    expect(line).toContain('"En double dans vos relevés"');
    expect(line).toContain('doublon de la ligne 2, même référence externe');
  });
});
