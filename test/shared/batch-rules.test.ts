/**
 * Batch rules pinned (issue 15): what is a duplicate, and the row limit, each with both sides.
 */
import { describe, expect, it } from 'vitest';
import { BATCH_MAX_ROWS } from '../../shared/api';
import { checkRows, parseBatchCsv } from '../../shared/batch';

const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';

function check(lines: string[]) {
  const parsed = parseBatchCsv([HEADER, ...lines].join('\n'));
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return checkRows(parsed.file.rows, { batchId: 'B1', defaultPaymentMethod: 'momo_cm' });
}

describe('duplicates (README, Decisions: same phone and same amount)', () => {
  it('does not flag the same phone with a different amount (a salary and a bonus to one person)', () => {
    const rows = check(['+237650000001,5000,Awa,N,a@example.com,Salary,', '+237650000001,2500,Awa,N,a@example.com,Bonus,']);
    expect(rows.map((row) => row.duplicates)).toEqual([[], []]);
    expect(rows.every((row) => row.request !== null)).toBe(true);
  });

  it('flags the same phone and amount however they are written (spaces in the number, a thousands separator)', () => {
    const rows = check(['+237 650 000 001,5000,Awa,N,a@example.com,Salary,', '+237650000001,5 000,Awa,N,a@example.com,Salary again,']);
    expect(rows.map((row) => row.duplicates)).toEqual([[{ reason: 'phone_amount', rowNumbers: [3] }], [{ reason: 'phone_amount', rowNumbers: [2] }]]);
  });
});

describe('the row limit (10,000, docs/bulk-payouts.md)', () => {
  const rowsOf = (count: number) => Array.from({ length: count }, (_, index) => `+237650000001,${100 + index},A,B,a@example.com,,`);

  it(`takes a file of exactly ${BATCH_MAX_ROWS} rows`, () => {
    expect(BATCH_MAX_ROWS).toBe(10_000);
    const parsed = parseBatchCsv([HEADER, ...rowsOf(BATCH_MAX_ROWS)].join('\n'));
    expect(parsed.ok && parsed.file.rows.length).toBe(BATCH_MAX_ROWS);
  });

  it('refuses a file of 10,001 rows, naming the limit', () => {
    expect(parseBatchCsv([HEADER, ...rowsOf(BATCH_MAX_ROWS + 1)].join('\n'))).toEqual({ ok: false, errors: ['the file has 10001 rows; a batch takes at most 10000'] });
  });
});
