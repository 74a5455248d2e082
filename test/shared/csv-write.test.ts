/**
 * The one CSV writer (shared/csv, issue 15 item 9): every cell quoted, the formula guard holds for
 * values with a line break inside, and every export goes through it (the batch files here; History
 * and Reconcile in test/console/csv-exports.test.ts).
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { BatchRow } from '../../shared/api';
import { checkRows, invalidRowsCsv, parseBatchCsv, reportCsv } from '../../shared/batch';
import { csvCell, guardFormula, unguardCell, writeCsv } from '../../shared/csv';

const EVIL = '=HYPERLINK("https://evil.example",\n"open")';

describe('csvCell', () => {
  it('quotes every cell, doubling quotes, and leaves numbers as data', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell(-250)).toBe('"-250"');
    expect(csvCell(0)).toBe('"0"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(undefined)).toBe('""');
  });

  it.each(['=1+1', '+1+1', '-2', '@SUM(A1)', '\tcmd', '\rcmd', EVIL, '=cmd|"/c calc"!A1'])('guards %j with a leading quote', (value) => {
    expect(guardFormula(value)).toBe(`'${value}`);
    expect(csvCell(value)).toBe(`"'${value.replace(/"/g, '""')}"`);
    expect(unguardCell(guardFormula(value))).toBe(value);
  });

  it('guards a formula after a line break inside a value too (a reader on the wrong separator may break the row there)', () => {
    expect(guardFormula('open\n=1+1')).toBe("open\n'=1+1");
    expect(unguardCell("open\n'=1+1")).toBe('open\n=1+1');
  });

  it('keeps a phone number whole, guarded as text: +237… reads back as written', () => {
    expect(csvCell('+237650000001')).toBe(`"'+237650000001"`);
    expect(unguardCell("'+237650000001")).toBe('+237650000001');
  });

  it('guards a formula after the other separator, so a French Excel splitting on ; cannot make a formula of it', () => {
    const csv = writeCsv(['a', 'b'], [['sep;=2+5;x', 'ok']], { delimiter: ',', bom: false });
    expect(csv).toBe(`"a","b"\r\n"sep;'=2+5;x","ok"\r\n`);
    // Read as a French Excel would (split on ;): the pieces stay inside one quoted field.
    const asFrench = Papa.parse<string[]>(csv, { delimiter: ';', skipEmptyLines: true }).data[1]!;
    expect(asFrench.some((cell) => cell.startsWith('=2+5'))).toBe(false);
  });

  it('writes a BOM unless told not to, CRLF lines and a final CRLF', () => {
    expect(writeCsv(['x'], [[1], [null]], { delimiter: ';' })).toBe('\uFEFF"x"\r\n"1"\r\n""\r\n');
  });
});

const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';

function rowsOf(text: string): BatchRow[] {
  const parsed = parseBatchCsv(text);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return checkRows(parsed.file.rows, { batchId: 'B1', defaultPaymentMethod: 'momo_cm' }).map(
    (row): BatchRow => ({ ...row, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: 75, error: null, rehearsal: null }),
  );
}

function cellsOf(csv: string, delimiter: ',' | ';'): string[][] {
  expect(csv.startsWith('\uFEFF')).toBe(true);
  return Papa.parse<string[]>(csv.slice(1), { delimiter, skipEmptyLines: true }).data;
}

describe('the batch files guard a formula with a line break inside', () => {
  const file = `${HEADER}\n+237650000001,1000,"${EVIL.replace(/"/g, '""')}",B,a@example.com,,\n+237650000001,oops,"${EVIL.replace(/"/g, '""')}",B,a@example.com,sep;=2+5;x,\n`;

  it('imports the value as it was written', () => {
    expect(rowsOf(file)[0]!.values.first_name).toBe(EVIL);
  });

  it.each(['en', 'fr'] as const)('in the batch report (%s)', (language) => {
    const { csv } = reportCsv(language, 'B1', rowsOf(file), 'XAF', 'now');
    const [header, first, second] = cellsOf(csv, language === 'fr' ? ';' : ',');
    const firstName = header!.indexOf(language === 'fr' ? 'prenom' : 'first_name');
    expect(firstName).toBeGreaterThan(0);
    expect(first![firstName]).toBe(`'${EVIL}`);
    expect(second![firstName]).toBe(`'${EVIL}`);
    expect(first![header!.indexOf(language === 'fr' ? 'telephone' : 'phone_number')]).toBe("'+237650000001");
    expect(csv).toContain(`"sep;'=2+5;x"`);
    // Every cell is quoted: each line starts with a quote.
    expect(csv.slice(1).split('\r\n').filter(Boolean).every((line) => line.startsWith('"'))).toBe(true);
  });

  it('in the invalid-rows file, which imports back as it was', () => {
    const { csv, rows } = invalidRowsCsv('en', rowsOf(file), 'now');
    expect(rows).toBe(1);
    const [header, only] = cellsOf(csv, ',');
    expect(only![header!.indexOf('first_name')]).toBe(`'${EVIL}`);
    expect(csv).toContain(`"sep;'=2+5;x"`);
    expect(rowsOf(csv)[0]!.values).toMatchObject({ first_name: EVIL, description: 'sep;=2+5;x', phone_number: '+237650000001', amount: 'oops' });
  });
});

describe('the batch report charges nothing for a failed row', () => {
  it('leaves the fee empty for a failed or cancelled row and keeps it for a completed one', () => {
    const rows = rowsOf(`${HEADER}\n+237650000001,1000,A,B,a@example.com,,\n+237650000002,1000,A,B,a@example.com,,\n+237650000009,1000,A,B,a@example.com,,\n`);
    const statuses = ['completed', 'failed', 'cancelled'] as const;
    const { csv } = reportCsv('en', 'B1', rows.map((row, index) => ({ ...row, status: statuses[index]! })), 'XAF', 'now');
    const [header, ...lines] = cellsOf(csv, ',');
    const fee = header!.indexOf('fee');
    expect(lines.map((line) => line[fee])).toEqual(['75', '', '']);
  });
});
