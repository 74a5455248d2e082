/**
 * The one CSV reader (shared/csv/read.ts, issue 15 item 10), through both importers: the batch
 * file (shared/batch/parse.ts) and Reconcile's merchant file (electron/console/reconcile/parse.ts)
 * report extra and missing cells with the same sentence, and refuse a UTF-16 file by name.
 */
import { describe, expect, it } from 'vitest';
import { parseMerchantFile } from '../../electron/console/reconcile/parse';
import { parseBatchCsv } from '../../shared/batch';
import { encodingProblem, readCsv } from '../../shared/csv';

const BATCH_HEADER = 'phone_number,amount,first_name,last_name,email';

/** A file's bytes as the console gets them: decoded as UTF-8 (Blob.text()), whatever they were. */
function asUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

function utf16(text: string, order: 'LE' | 'BE', bom = true): Uint8Array {
  const bytes: number[] = bom ? (order === 'LE' ? [0xff, 0xfe] : [0xfe, 0xff]) : [];
  for (const char of text) {
    const code = char.charCodeAt(0);
    bytes.push(...(order === 'LE' ? [code & 0xff, code >> 8] : [code >> 8, code & 0xff]));
  }
  return Uint8Array.from(bytes);
}

describe('extra and missing cells, the same sentence in both importers', () => {
  it('batch import: a row with a cell too many or too few is flagged', () => {
    const parsed = parseBatchCsv(`${BATCH_HEADER}\n+237650000001,25,000,A,B,a@example.com\n+237650000001,25,A,B\n`);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    expect(parsed.file.rows.map((row) => row.lineErrors)).toEqual([['has 6 cells where the header has 5'], ['has 4 cells where the header has 5']]);
  });

  it('Reconcile: `xcol-1,payment,25,000` under a three-column header is refused, not read as 25', async () => {
    const result = await parseMerchantFile('external_id,kind,amount\nxcol-1,payment,25,000\nxcol-2,payment\nok-1,payment,100\n', 0);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { row: 2, column: 'file', code: 'cell_count', message: 'has 4 cells where the header has 3', params: { cells: 4, header: 3 } },
      { row: 3, column: 'file', code: 'cell_count', message: 'has 2 cells where the header has 3', params: { cells: 2, header: 3 } },
      { row: 3, column: 'amount', code: 'required', message: 'is required' },
    ]);
  });

  it('Reconcile: the same file with the amount quoted is read', async () => {
    const result = await parseMerchantFile('external_id,kind,amount\nxcol-1,payment,"25000"\n', 0);
    expect(result).toMatchObject({ ok: true, rows: [{ externalId: 'xcol-1', amount: 25000 }] });
  });
});

describe('a UTF-16 file is refused with a sentence naming the encoding', () => {
  const text = 'external_id,kind,amount\r\nutf-1,payment,100\r\n';

  it.each([
    ['UTF-16 LE', utf16(text, 'LE')],
    ['UTF-16 BE', utf16(text, 'BE')],
    ['UTF-16 LE', utf16(text, 'LE', false)],
    ['UTF-16 BE', utf16(text, 'BE', false)],
  ] as const)('%s (Reconcile and batch alike)', async (encoding, bytes) => {
    const decoded = asUtf8(bytes);
    expect(encodingProblem(decoded)?.params.encoding).toBe(encoding);
    const merchant = await parseMerchantFile(decoded, 0);
    expect(merchant).toMatchObject({ ok: false, errors: [{ row: 1, column: 'file', code: 'encoding', params: { encoding } }] });
    if (!merchant.ok) expect(merchant.errors[0]!.message).toBe(`is ${encoding} text, not UTF-8: save it as "CSV UTF-8 (comma delimited)" and import it again`);
    const batch = parseBatchCsv(asUtf8(utf16(`${BATCH_HEADER}\r\n+237650000001,100,A,B,a@example.com\r\n`, encoding.endsWith('LE') ? 'LE' : 'BE')));
    expect(batch).toEqual({ ok: false, errors: [`the file is ${encoding} text, not UTF-8: save it as "CSV UTF-8 (comma delimited)" and import it again`] });
  });

  it('names a file read as Latin-1 (ÿþ first) too', () => {
    expect(encodingProblem(new TextDecoder('latin1').decode(utf16(text, 'LE')))?.params.encoding).toBe('UTF-16 LE');
  });

  it('reads a UTF-16 file the browser already decoded by its BOM, and UTF-8 with accents', async () => {
    expect(encodingProblem(new TextDecoder('utf-16le').decode(utf16(text, 'LE')))).toBeNull();
    expect(await parseMerchantFile(new TextDecoder('utf-16le').decode(utf16(text, 'LE')), 0)).toMatchObject({ ok: true, rows: [{ externalId: 'utf-1' }] });
    expect(readCsv('\uFEFFnom;montant\nCafé;100\n')).toMatchObject({ ok: true, file: { separator: ';', records: [['nom', 'montant'], ['Café', '100'], ['']] } });
  });
});
