/**
 * Reconciliation against the real engine, journal file and channels, on a small file: the file's
 * format (BOM, `;`, quotes, precise errors), each category, the journal learning what was looked
 * up, Verify, export, and a run interrupted by a restart that resumes from the rows not checked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectFail, expectOk } from './helpers';
import {
  closeRuntime,
  createAtService,
  importFile,
  merchantClient,
  reconcile,
  settleViaControlApi,
  startEngineTimeRuntime,
  untilStatus,
  request,
  type Runtime,
} from './reconcile-fixtures';
import { parseMerchantFile } from '../../electron/console/reconcile/parse';
import { categorize } from '../../electron/console/reconcile/categorize';
import { expectedStatusOf, statusSatisfies } from '../../shared/api/reconcile';

let runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.reverse()) await closeRuntime(runtime);
  runtimes = [];
});
async function start(dir?: string): Promise<Runtime> {
  const runtime = await startEngineTimeRuntime(dir);
  if (!dir) runtimes.push(runtime);
  return runtime;
}

describe('reading the merchant file', () => {
  it('reads UTF-8 with a BOM, `;` separators and quoted fields', async () => {
    const text = '\uFEFFexternal_id;kind;amount;expected_status;date\r\n"ord-1";payment;"25000";Payé;2026-11-20\r\nord-2;PAYOUT;700;;"20/11/2026"\r\n\r\n';
    const parsed = await parseMerchantFile(text, -60);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.delimiter).toBe(';');
    expect(parsed.rows.map((r) => [r.row, r.externalId, r.kind, r.amount, r.expected])).toEqual([
      [2, 'ord-1', 'payment', 25000, 'completed'],
      [3, 'ord-2', 'payout', 700, null],
    ]);
    // A whole day in Douala (UTC+1, getTimezoneOffset -60): 2026-11-19T23:00Z to 2026-11-20T22:59:59.999Z.
    expect(new Date(parsed.rows[0]!.dateMs!).toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(new Date(parsed.rows[1]!.dateEndMs!).toISOString()).toBe('2026-11-20T22:59:59.999Z');
  });

  it('names each bad cell by row, column and message, and a duplicate by both rows', async () => {
    const text = [
      'external_id,kind,amount,expected_status,date',
      'ord-1,payment,25000,paid,2026-11-20',
      'ord 2,refund,25.5,maybe,2026-02-30',
      'ord-1,payment,100,,',
      ',payment,,,',
    ].join('\n');
    const parsed = await parseMerchantFile(text, 0);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errorCount).toBe(7);
    expect(parsed.errors.map((e) => `${e.row}/${e.column}`)).toEqual([
      '3/external_id',
      '3/kind',
      '3/amount',
      '3/expected_status',
      '3/date',
      '5/external_id',
      '5/amount',
    ]);
    expect(parsed.errors[1]!.message).toBe('must be payment or payout');
    expect(parsed.errors[2]!.message).toMatch(/whole number in the smallest unit/);
    // ord-1 twice is no refusal: a finding of the report (reconcile-merchant-files.test.ts).
    expect(parsed.errors.map((e) => e.code)).toEqual(['external_id_format', 'kind', 'amount_format', 'expected_status', 'date', 'required', 'required']);
    expect(parsed.errors[5]!.message).toBe('is required');
  });

  it('refuses a header without the required columns, and still names the bad cells of the columns it has', async () => {
    const parsed = await parseMerchantFile('id;amount\nx;1\ny;12,5\n', 0);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toEqual([
      { row: 1, column: 'external_id', code: 'missing_column', message: 'is missing from the header row' },
      { row: 1, column: 'kind', code: 'missing_column', message: 'is missing from the header row' },
      { row: 3, column: 'amount', code: 'amount_format', message: 'must be a whole number in the smallest unit, digits only (e.g. 25000)' },
    ]);
    expect(parsed.ignoredColumns).toEqual(['id']);
  });

  it('reads past the columns it does not know, names them, and shows every cell error at once', async () => {
    const text = 'external_id,kind,merchant_note,amount,,Customer Ref\nord-1,payment,VIP,25000,,c1\nord-2,payment,late,25 000,x,c2\nord-3,refund,,100,,c3\n';
    const parsed = await parseMerchantFile(text, 0);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    // `25 000` is read as bulk payouts read it; `12,5`-like decimals stay refused (above).
    expect(parsed.errors.map((e) => `${e.row}/${e.column}/${e.code}`)).toEqual(['4/kind/kind']);
    expect(parsed.ignoredColumns).toEqual(['merchant_note', 'Customer Ref', '#5']);

    const fixed = await parseMerchantFile(text.replace('25 000', '25000').replace('refund', 'payout'), 0);
    expect(fixed.ok).toBe(true);
    if (!fixed.ok) return;
    expect(fixed.rows.map((r) => [r.externalId, r.kind, r.amount])).toEqual([['ord-1', 'payment', 25000], ['ord-2', 'payment', 25000], ['ord-3', 'payout', 100]]);
    expect(fixed.ignoredColumns).toEqual(['merchant_note', 'Customer Ref', '#5']);
    // A trailing separator (an unnamed column nobody writes in) is not a column to name.
    const trailing = await parseMerchantFile('external_id,kind,amount,\nord-1,payment,5,\n', 0);
    expect(trailing.ok && trailing.ignoredColumns).toEqual([]);
  });
});

describe('what the merchant expects, and the category order', () => {
  it('reads the status words of merchants in English and French, and refuses others', () => {
    expect(['paid', ' PAID ', 'Payé', 'réussi', 'successful'].map(expectedStatusOf)).toEqual(Array(5).fill('completed'));
    expect(['failed', 'échoué', 'declined'].map(expectedStatusOf)).toEqual(Array(3).fill('failed'));
    expect(['cancelled', 'canceled', 'annulé'].map(expectedStatusOf)).toEqual(Array(3).fill('cancelled'));
    expect(['pending', 'En cours', 'en_attente'].map(expectedStatusOf)).toEqual(Array(3).fill('processing'));
    expect(['unpaid', 'not-paid', 'Impayé'].map(expectedStatusOf)).toEqual(Array(3).fill('not_completed'));
    expect(['refunded', 'ok', '__proto__', 'toString'].map(expectedStatusOf)).toEqual([null, null, null, null]);
    expect(statusSatisfies('not_completed', 'failed')).toBe(true);
    expect(statusSatisfies('not_completed', 'cancelled')).toBe(true);
    expect(statusSatisfies('not_completed', 'completed')).toBe(false);
  });

  it('ranks a wrong amount over a status, and ages processing against N minutes', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const at = (minutesAgo: number) => now - minutesAgo * 60_000;
    expect(categorize({ amount: 100, expected: 'completed' }, null, now, 30)).toBe('missing_at_service');
    expect(categorize({ amount: 100, expected: 'completed' }, { status: 'failed', amount: 90, createdAtMs: at(1) }, now, 30)).toBe('amount_differs');
    expect(categorize({ amount: 100, expected: 'completed' }, { status: 'processing', amount: 100, createdAtMs: at(30) }, now, 30)).toBe('still_processing');
    expect(categorize({ amount: 100, expected: 'completed' }, { status: 'processing', amount: 100, createdAtMs: at(29) }, now, 30)).toBe('processing_recent');
    expect(categorize({ amount: 100, expected: 'completed' }, { status: 'failed', amount: 100, createdAtMs: at(1) }, now, 30)).toBe('status_differs');
    expect(categorize({ amount: 100, expected: 'not_completed' }, { status: 'cancelled', amount: 100, createdAtMs: at(1) }, now, 30)).toBe('matched');
    expect(categorize({ amount: 100, expected: null }, { status: 'failed', amount: 100, createdAtMs: at(1) }, now, 30)).toBe('matched');
  });

  it('takes a status the spec does not list for not final yet: aged like processing, and what "processing" expects (tolerant-reader.md)', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const at = (minutesAgo: number) => now - minutesAgo * 60_000;
    expect(categorize({ amount: 100, expected: 'completed' }, { status: 'pending', amount: 100, createdAtMs: at(30) }, now, 30)).toBe('still_processing');
    expect(categorize({ amount: 100, expected: 'failed' }, { status: 'queued', amount: 100, createdAtMs: at(2) }, now, 30)).toBe('processing_recent');
    expect(statusSatisfies('processing', 'pending')).toBe(true);
    expect(statusSatisfies('not_completed', 'pending')).toBe(false);
    expect(statusSatisfies('completed', 'pending')).toBe(false);
  });
});

describe('reconciling against the service', () => {
  it('puts each row in its category, records look-ups in the journal, verifies and exports', async () => {
    const runtime = await start();
    const merchant = merchantClient(runtime);
    const ids: Record<string, string> = {};
    const create = async (ext: string, amount: number, phone: string, kind: 'payment' | 'payout' = 'payment') => {
      ids[ext] = await createAtService(runtime, merchant, kind, request(ext, amount, phone));
      await settleViaControlApi(runtime, ids[ext]!);
    };
    await create('ok-1', 5000, '+237650000001');
    await create('ok-po', 2000, '+237650000001', 'payout');
    await create('amt-1', 5000, '+237650000001');
    await create('failed-1', 5000, '+237650000002');
    await create('lost-1', 5000, '+237650000008');
    await create('extra-1', 1234, '+237650000001');
    // The console looked this one up earlier: it is in the journal, not in the file.
    expectOk(await runtime.handlers['transactions:lookup']({ id: 'extra-1', by: 'external_id', kind: 'payment' }));
    runtime.engine!.clock.advance(20 * 60);

    const period = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000 * 2).toISOString() };
    // A merchant export carries its own columns too: read past, and named on the report.
    const file = 'external_id,kind,amount,expected_status,merchant_note\nok-1,payment,5000,paid,a\nok-po,payout,2000,completed,\namt-1,payment,5100,paid,b\nfailed-1,payment,5000,paid,\nlost-1,payment,5000,paid,\nnobody-1,payment,900,,\n';
    const summary = await reconcile(runtime, file, { processingMinutes: 15, period });
    await merchant.close();
    expect(summary.status).toBe('done');
    expect(summary.ignoredColumns).toEqual(['merchant_note']);
    expect(summary.checkedRows).toBe(6);
    const counts = Object.fromEntries(Object.entries(summary.categories).map(([k, v]) => [k, v.count]));
    expect(counts).toEqual({ matched: 2, amount_differs: 1, status_differs: 1, missing_at_service: 1, unknown_to_merchant: 1, duplicate_in_records: 0, still_processing: 1, processing_recent: 0, not_checked: 0 });
    expect(summary.categories.matched.amount).toBe(7000);
    expect(summary.categories.amount_differs).toEqual({ count: 1, amount: 5100, serviceAmount: 5000 });
    expect(summary.categories.unknown_to_merchant.amount).toBe(1234);

    const page = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 10 }));
    expect(page.total).toBe(7);
    const byExt = Object.fromEntries(page.rows.map((row) => [row.externalId, row]));
    expect(byExt['failed-1']).toMatchObject({ row: 5, category: 'status_differs', serviceStatus: 'failed', transactionId: ids['failed-1'] });
    expect(byExt['extra-1']).toMatchObject({ row: null, category: 'unknown_to_merchant', transactionId: ids['extra-1'] });
    // The look-up was recorded: the row opens the journal entry with its timeline.
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: byExt['lost-1']!.journalId! }));
    expect(detail.transaction.status).toBe('processing');
    expect(detail.transaction.externalId).toBe('lost-1');
    expect(detail.timeline[0]).toMatchObject({ type: 'status_seen', status: 'processing', httpStatus: 200 });

    const verified = untilStatus(runtime, ['done']);
    expectOk(await runtime.handlers['reconcile:verify']({ id: summary.id }));
    await verified;
    const after = expectOk(await runtime.handlers['reconcile:get']({ id: summary.id }));
    expect(after.categories.still_processing.count).toBe(0);
    expect(after.categories.matched.count).toBe(3);
    const lost = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, category: 'matched', offset: 0, limit: 10 })).rows.find((r) => r.externalId === 'lost-1');
    expect(lost).toMatchObject({ serviceStatus: 'completed', detail: 'verified: completed' });
    expectFail(await runtime.handlers['reconcile:verify']({ id: summary.id }), 'CONFLICT');

    const exported = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, language: 'fr' }));
    // The one CSV writer: a BOM, every cell quoted.
    const quoted = (line: string) => line.split(',').map((cell) => `"${cell}"`).join(',');
    expect(exported.csv.startsWith('\uFEFF')).toBe(true);
    const lines = exported.csv.slice(1).trimEnd().split('\r\n');
    expect(exported.rows).toBe(7);
    expect(lines[0]).toBe(quoted('ligne,reference_externe,type,montant,statut_attendu,date,resultat,id_transaction,statut_service,montant_service,devise,remarque'));
    expect(lines[3]).toBe(quoted(`4,amt-1,payment,5100,paid,,Montant différent,${ids['amt-1']},completed,5000,XAF,`));
    const lostLine = lines.find((line) => line.includes(',"lost-1",'))!;
    expect(lostLine.endsWith(quoted(',Concordant,' + ids['lost-1'] + ',completed,5000,XAF,vérifié : réussi').slice(2))).toBe(true);
    const english = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, category: 'missing_at_service', language: 'en' }));
    expect(english.csv).toBe(`\uFEFF${quoted('row,external_id,kind,amount,expected_status,date,result,transaction_id,service_status,service_amount,currency,note')}\r\n${quoted('7,nobody-1,payment,900,,,Missing at the service,,,,XAF,')}\r\n`);
  });

  it('answers the file errors and saves nothing when a row is invalid', async () => {
    const runtime = await start();
    const answer = await importFile(runtime, 'external_id;kind;amount\nok;payment;100\nbad;payment;-4\n');
    expect(answer).toEqual({ accepted: false, rows: 2, errorCount: 1, errors: [{ row: 3, column: 'amount', code: 'amount_min', message: 'must be at least 1' }], ignoredColumns: [] });
    expect(expectOk(await runtime.handlers['reconcile:list']({})).reconciliations).toEqual([]);
    expectFail(await runtime.handlers['reconcile:import']({ uploadId: 'nope' }), 'NOT_FOUND');
  });

  it('marks a run stopped by a restart as interrupted, and resumes it from the rows not yet checked', async () => {
    const dir = (await start()).dir;
    await closeRuntime(runtimes.pop(), false);
    const first = await start(dir);
    const rows = Array.from({ length: 3000 }, (_, i) => `gone-${i},payment,${100 + i}`);
    const file = `external_id,kind,amount\n${rows.join('\n')}\n`;
    const progressed = new Promise<void>((resolve) => {
      const off = first.on('reconcile:progress', (event) => {
        if (event.checkedRows >= 500) {
          off();
          resolve();
        }
      });
    });
    const imported = await importFile(first, file);
    if (!imported.accepted) throw new Error('not accepted');
    await progressed;
    await closeRuntime(first, false);

    const second = await start(dir);
    runtimes.push(second);
    const stopped = expectOk(await second.handlers['reconcile:get']({ id: imported.reconciliation.id }));
    expect(stopped.status).toBe('interrupted');
    expect(stopped.checkedRows).toBeGreaterThanOrEqual(500);
    expect(stopped.checkedRows).toBeLessThan(3000);
    const done = untilStatus(second, ['done']);
    expectOk(await second.handlers['reconcile:resume']({ id: stopped.id }));
    await done;
    const finished = expectOk(await second.handlers['reconcile:get']({ id: stopped.id }));
    expect(finished.categories.missing_at_service).toEqual({ count: 3000, amount: 3000 * 100 + (2999 * 3000) / 2, serviceAmount: 0 });
    expect(finished.checkedRows).toBe(3000);
  });

  it('cancels a running reconciliation, which can then be resumed', async () => {
    const runtime = await start();
    const file = `external_id,kind,amount\n${Array.from({ length: 2000 }, (_, i) => `c-${i},payment,10`).join('\n')}\n`;
    const imported = await importFile(runtime, file);
    if (!imported.accepted) throw new Error('not accepted');
    const cancelled = expectOk(await runtime.handlers['reconcile:cancel']({ id: imported.reconciliation.id }));
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.checkedRows).toBeLessThan(2000);
    expectFail(await runtime.handlers['reconcile:cancel']({ id: cancelled.id }), 'CONFLICT');
    const done = untilStatus(runtime, ['done']);
    expectOk(await runtime.handlers['reconcile:resume']({ id: cancelled.id }));
    await done;
    expect(expectOk(await runtime.handlers['reconcile:get']({ id: cancelled.id })).categories.missing_at_service.count).toBe(2000);
  });
});
