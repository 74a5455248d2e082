/**
 * The formula guard holds under the other separator (issue 23 item 8): a cell like `Acme,=2+5+0`
 * in a `,` file opened by a French Excel splitting on `;` (or `Acme;=1+1` in a `;` file opened
 * with `,`) must not start a formula cell. Property tests on the writer and on the batch files
 * (report, invalid rows): split the written file by both separators, no piece is a formula, and
 * our importer reads the invalid rows back as they were typed. History and Reconcile exports:
 * test/console/csv-formula-separators.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchRow } from '../../shared/api';
import { checkRows, invalidRowsCsv, parseBatchCsv, reportCsv } from '../../shared/batch';
import { guardFormula, unguardCell, writeCsv } from '../../shared/csv';
import { formulaPieces, hostileText } from './formula-any-separator';

describe('the writer under any separator', () => {
  it('guards the examples of the issue: Acme,=2+5+0 and Acme;=1+1', () => {
    expect(guardFormula('Acme,=2+5+0')).toBe("Acme,'=2+5+0");
    expect(guardFormula('Acme;=1+1')).toBe("Acme;'=1+1");
    expect(guardFormula('Acme, "=1+1')).toBe(`Acme,' "=1+1`);
    expect(guardFormula('a,\t=1')).toBe("a,'\t'=1");
    expect(guardFormula('Acme, Ltd')).toBe('Acme, Ltd');
    for (const delimiter of [',', ';'] as const) {
      expect(formulaPieces(writeCsv(['a'], [['Acme,=2+5+0'], ['Acme;=1+1']], { delimiter }))).toEqual([]);
    }
  });

  it('writes no piece that starts a formula, whatever the cells, and unguards back to them', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.oneof(hostileText, fc.integer({ min: -1_000_000, max: 1_000_000 })), { minLength: 1, maxLength: 4 }), { maxLength: 6 }), fc.constantFrom(',' as const, ';' as const), (rows, delimiter) => {
        const csv = writeCsv(['a', 'b', 'c', 'd'], rows, { delimiter });
        expect(formulaPieces(csv)).toEqual([]);
        for (const cell of rows.flat()) if (typeof cell === 'string') expect(unguardCell(guardFormula(cell))).toBe(cell);
      }),
      { numRuns: 300 },
    );
  });
});

const HEADER = ['phone_number', 'amount', 'first_name', 'last_name', 'email', 'description', 'external_id'];

function batchFile(lines: string[][]): string {
  const quote = (cell: string) => `"${cell.replace(/"/g, '""')}"`;
  return [HEADER, ...lines].map((line) => line.map(quote).join(',')).join('\r\n');
}

function rowsOf(text: string): BatchRow[] {
  const parsed = parseBatchCsv(text);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return checkRows(parsed.file.rows, { batchId: 'B1', defaultPaymentMethod: 'momo_cm' }).map(
    (row): BatchRow => ({ ...row, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: 75, error: null, rehearsal: null }),
  );
}

/** A batch row with hostile names and description; every other row has a bad amount, so it is invalid. */
const batchLine = fc.tuple(hostileText, hostileText, hostileText, fc.boolean()).map(([first, last, description, invalid]) => [
  '+237650000001', invalid ? 'oops' : '1000', first, last, 'a@example.com', description, '',
]);

describe('the batch files under any separator', () => {
  it.each(['en', 'fr'] as const)('the batch report (%s) has no formula piece', (language) => {
    fc.assert(
      fc.property(fc.array(batchLine, { minLength: 1, maxLength: 5 }), (lines) => {
        const { csv } = reportCsv(language, 'B1', rowsOf(batchFile(lines)), 'XAF', 'now');
        expect(formulaPieces(csv)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it.each(['en', 'fr'] as const)('the invalid rows (%s) have no formula piece and import back as typed', (language) => {
    fc.assert(
      fc.property(fc.array(batchLine, { minLength: 1, maxLength: 5 }), (lines) => {
        const rows = rowsOf(batchFile(lines));
        const { csv } = invalidRowsCsv(language, rows, 'now');
        expect(formulaPieces(csv)).toEqual([]);
        const invalid = rows.filter((row) => Object.keys(row.errors).length > 0);
        const back = invalid.length === 0 ? [] : rowsOf(csv);
        expect(back.map((row) => [row.values.first_name, row.values.last_name, row.values.description])).toEqual(
          invalid.map((row) => [row.values.first_name, row.values.last_name, row.values.description]),
        );
      }),
      { numRuns: 100 },
    );
  });
});
