/**
 * The formula guard under the other separator in the exports main writes from a real SQLite
 * journal (issue 23 item 8): History (journal entries with hostile names and descriptions) and
 * Reconcile (a file's raw expected status and date, and a service's message in the detail).
 * Property tests: split the written file by both separators, no piece is a formula. The batch
 * files: test/shared/csv-formula-separators.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openJournal, recordRequest } from '../../electron/console/journal/entries';
import { exportCsv } from '../../electron/console/journal/search';
import { createReconciliation, saveOutcomes } from '../../electron/console/reconcile/store';
import { exportReport } from '../../electron/console/reconcile/export';
import { sqliteReconcileRows } from '../../electron/console/storage/sqlite-reconcile-rows';
import { formulaPieces, hostileText } from '../shared/formula-any-separator';
import { paymentRequest, tempDir } from './helpers';

const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

describe('exports under any separator', () => {
  it('History: no piece of the file starts a formula, whatever the names and descriptions', () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    let at = 1_000;
    fc.assert(
      fc.property(fc.array(fc.tuple(hostileText, hostileText, hostileText), { minLength: 1, maxLength: 4 }), fc.constantFrom('en' as const, 'fr' as const), (people, language) => {
        db.prepare('DELETE FROM entries').run();
        for (const [first, last, description] of people) {
          const request = paymentRequest({ description, customer: { first_name: first, last_name: last, email: 'a@example.com' } });
          recordRequest(db, { profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: (at += 1) });
        }
        const { csv, rows } = exportCsv(db, {}, language);
        expect(rows).toBe(people.length);
        expect(formulaPieces(csv)).toEqual([]);
      }),
      { numRuns: 60 },
    );
    db.close();
  });

  it('Reconcile: no piece of the report starts a formula, whatever the file and the service wrote', async () => {
    const db = openJournal(`${tempDir()}/journal.db`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(hostileText, hostileText, hostileText), { minLength: 1, maxLength: 4 }), fc.constantFrom('en' as const, 'fr' as const), async (lines, language) => {
        const id = await createReconciliation(db, {
          fileName: 'orders.csv',
          ignoredColumns: [],
          profile: PROFILE,
          rows: lines.map(([expectedRaw, dateRaw], index) => ({
            row: index + 2, externalId: `ord-${index}`, kind: 'payout', amount: 1000, expectedRaw, expected: null, dateRaw, dateMs: null, dateEndMs: null,
          })),
          processingMinutes: 30,
          period: null,
          currency: 'XAF',
          at: 1_000,
        });
        saveOutcomes(db, id!, lines.map(([, , detail], index) => ({
          rowNumber: index + 2,
          outcome: { category: 'not_checked', journalId: null, transactionId: null, serviceStatus: null, serviceAmount: null, serviceCreatedAt: null, currency: 'XAF', detail },
        })), 2_000);
        const { csv, rows } = await exportReport(sqliteReconcileRows(db), id!, undefined, language, 'XAF');
        expect(rows).toBe(lines.length);
        expect(formulaPieces(csv)).toEqual([]);
      }),
      { numRuns: 60 },
    );
    db.close();
  });
});
