/**
 * Reading and checking batch CSV files (shared/batch): separators, BOM, quoted fields, metadata
 * columns, spreadsheet row numbers, precise errors per cell, duplicates, and the files main writes.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { checkRows, invalidRowsCsv, parseBatchCsv, templateCsv, type CheckedRow } from '../../shared/batch';
import type { BatchRow } from '../../shared/api';

const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';

function parseOk(text: string) {
  const result = parseBatchCsv(text);
  if (!result.ok) throw new Error(`expected a parse, got ${result.errors.join('; ')}`);
  return result.file;
}

function check(text: string, defaultPaymentMethod: string | null = 'momo_cm'): CheckedRow[] {
  return checkRows(parseOk(text).rows, { batchId: 'B1', defaultPaymentMethod });
}

describe('parseBatchCsv', () => {
  it('reads a comma file with a BOM and CRLF line ends', () => {
    const file = parseOk(`\uFEFF${HEADER}\r\n+237650000001,5000,Awa,Nkemdirim,awa@example.com,October,\r\n`);
    expect(file.separator).toBe(',');
    expect(file.rows).toHaveLength(1);
    expect(file.rows[0]!.values).toMatchObject({ phone_number: '+237650000001', amount: '5000', first_name: 'Awa', email: 'awa@example.com' });
  });

  it('reads a semicolon file as Excel writes it in French, with French headers and a quoted comma', () => {
    const text = 'telephone;montant;prenom;nom;email;description\n+237650000001;5 000;Awa;Nkemdirim;awa@example.com;"Commission, octobre"\n';
    const file = parseOk(text);
    expect(file.separator).toBe(';');
    const [row] = checkRows(file.rows, { batchId: 'B1', defaultPaymentMethod: 'momo_cm' });
    expect(row!.errors).toEqual({});
    expect(row!.request).toMatchObject({ amount: 5000, description: 'Commission, octobre', external_id: 'B1-2' });
  });

  it('keeps a quoted line break and doubled quotes inside one cell and one spreadsheet row', () => {
    const text = `${HEADER}\n+237650000001,100,Awa,N,a@example.com,"line one\nsays ""hi""",\n+237650000002,200,Jean,M,j@example.com,x,\n`;
    const file = parseOk(text);
    expect(file.rows.map((row) => row.rowNumber)).toEqual([2, 3]);
    expect(file.rows[0]!.values.description).toBe('line one\nsays "hi"');
  });

  it('numbers rows as a spreadsheet does, blank lines included', () => {
    const file = parseOk(`${HEADER}\n+237650000001,1,A,B,a@example.com,,\n\n+237650000002,2,C,D,c@example.com,,\n`);
    expect(file.rows.map((row) => row.rowNumber)).toEqual([2, 4]);
  });

  it('turns meta.KEY columns into metadata, leaving empty cells out', () => {
    const rows = check(`${HEADER},meta.region,meta.agent\n+237650000001,100,A,B,a@example.com,,,Littoral,\n`);
    expect(rows[0]!.request?.metadata).toEqual({ region: 'Littoral' });
  });

  it('refuses a file with a missing required column, an unknown column or no rows, naming each', () => {
    const missing = parseBatchCsv('phone_number,amount,first_name,last_name,colour\n+237650000001,1,A,B,red\n');
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.errors).toContain('the column email is missing');
      expect(missing.errors.some((error) => error.includes('"colour" is not a known column'))).toBe(true);
    }
    const empty = parseBatchCsv(`${HEADER}\n`);
    expect(empty.ok ? [] : empty.errors).toEqual(['the file has a header but no rows']);
  });

  it('refuses an unclosed quote with the row it starts on', () => {
    const result = parseBatchCsv(`${HEADER}\n+237650000001,1,A,B,a@example.com,"never closed,\n`);
    expect(result.ok).toBe(false);
  });
});

describe('checkRows', () => {
  it('reports each bad cell with a precise message under its column', () => {
    const rows = check(
      [
        HEADER,
        '237650000001,12.50,,B,not-an-email,,',
        '2.3765E+11,abc,A,B,a@example.com,,bad id!',
        `+237650000001,5000,A,B,a@example.com,${'x'.repeat(300)},`,
        '+237650000001,1,2',
      ].join('\n'),
    );
    expect(rows[0]!.errors).toEqual({
      amount: ['must be a whole number in the smallest currency unit (no decimals)'],
      phone_number: ['must be + followed by the country code and number, digits only (e.g. +237650000001)'],
      first_name: ['is required'],
      email: ['must be a valid email address'],
    });
    expect(rows[1]!.errors.phone_number).toEqual(['was turned into a number by a spreadsheet: format the column as text and write it as +237…']);
    expect(rows[1]!.errors.amount).toEqual(['must be a number']);
    expect(rows[1]!.errors.external_id).toEqual(['may contain only letters, digits and . _ : -']);
    expect(rows[2]!.errors.description).toEqual(['must be at most 255 characters']);
    expect(rows[3]!.errors._).toEqual(['has 3 cells where the header has 7']);
    expect(rows.every((row) => row.request === null)).toBe(true);
  });

  it('asks for a payment method when neither the row nor the batch gives one', () => {
    const [row] = check(`${HEADER}\n+237650000001,100,A,B,a@example.com,,\n`, null);
    expect(row!.errors.payment_method?.[0]).toMatch(/is required/);
  });

  it('flags the same phone and amount as duplicates, and refuses a repeated external id after its first row', () => {
    const rows = check(
      [HEADER, '+237650000001,100,A,B,a@example.com,,', '+237650000001,100,C,D,c@example.com,,', '+237650000002,5,E,F,e@example.com,,X1', '+237650000003,6,G,H,g@example.com,,X1'].join('\n'),
    );
    expect(rows[0]!.duplicates).toEqual([{ reason: 'phone_amount', rowNumbers: [3] }]);
    expect(rows[1]!.request).not.toBeNull(); // a warning: sent unless dropped
    expect(rows[2]!.errors).toEqual({});
    expect(rows[3]!.errors.external_id).toEqual(['is the same as row 4: the service accepts an external id once']);
    expect(rows[3]!.request).toBeNull();
  });
});

describe('batch files', () => {
  it('writes a template, in each language, that imports back without an error', () => {
    for (const language of ['en', 'fr'] as const) {
      const { csv } = templateCsv(language);
      expect(csv.startsWith('\uFEFF')).toBe(true);
      const rows = checkRows(parseOk(csv).rows, { batchId: 'T', defaultPaymentMethod: null });
      expect(rows).toHaveLength(3);
      expect(rows.map((row) => row.errors)).toEqual([{}, {}, {}]);
      expect(rows[0]!.request?.metadata).toEqual({ region: 'Littoral' });
    }
  });

  it('writes invalid rows with the formula guard, and reads them back as they were', () => {
    const checked = check(`${HEADER}\n+237650000001,=1+1,A,B,a@example.com,@SUM(A1),\n`);
    const rows = checked.map((row): BatchRow => ({ ...row, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: null, error: null, rehearsal: null }));
    const { csv, rows: count } = invalidRowsCsv('en', rows, 'now');
    expect(count).toBe(1);
    const cells = Papa.parse<string[]>(csv.slice(1), { skipEmptyLines: true }).data[1]!;
    expect(cells[2]).toBe("'=1+1");
    expect(cells[6]).toBe("'@SUM(A1)");
    const again = parseOk(csv).rows[0]!.values;
    expect(again.amount).toBe('=1+1');
    expect(again.description).toBe('@SUM(A1)');
  });
});
