/**
 * The one CSV reader of the files users import (bulk payouts and Reconcile): papaparse with the
 * same decoding, separator choice and error rows for both, so the two screens read a file the
 * same way. What spreadsheets write is read: a UTF-8 BOM, `,` or `;` (the header line decides:
 * Excel in French locales writes `;`), quoted fields with separators, line breaks and doubled
 * quotes. A UTF-16 file (Excel's "Unicode text") is refused with a sentence naming the encoding,
 * rather than read as column names full of NULs. Pure: no Node or DOM APIs; the chunked reader is
 * given its own way to yield between chunks.
 */
import Papa from 'papaparse';

export type CsvSeparator = ',' | ';';

export interface CsvRecords {
  separator: CsvSeparator;
  /** Every record, blank lines included, so record i is spreadsheet row i + 1. */
  records: string[][];
  /** Quotes opened and never closed, and other malformed lines, by spreadsheet row. */
  errors: { row: number; kind: 'quotes' | 'other'; message: string }[];
}

/** A file that is not text this reader takes; `message` is English, `code` and `params` translate it. */
export interface CsvFileProblem {
  code: 'encoding';
  params: { encoding: string };
  message: string;
}

export type CsvReadResult = { ok: true; file: CsvRecords } | { ok: false; problem: CsvFileProblem };

/** A file sent as bytes, a share of NUL characters above which it is not UTF-8 text. */
const NUL_SHARE = 0.1;

function encodingRefusal(encoding: string): CsvFileProblem {
  return {
    code: 'encoding',
    params: { encoding },
    message: `is ${encoding} text, not UTF-8: save it as "CSV UTF-8 (comma delimited)" and import it again`,
  };
}

/**
 * The UTF-16 a text shows once decoded as UTF-8 (or Latin-1): its byte order mark read as two
 * replacement characters (or `ÿþ`/`þÿ`), or NULs between the characters (the zero byte of every
 * ASCII character). A file a browser already decoded by its BOM is proper text and passes.
 */
export function encodingProblem(text: string): CsvFileProblem | null {
  const head = text.slice(0, 4096);
  let bomOrder: 'LE' | 'BE' | null = null;
  if (head.startsWith('\u00ff\u00fe')) bomOrder = 'LE';
  else if (head.startsWith('\u00fe\u00ff')) bomOrder = 'BE';
  const body = head.startsWith('\ufffd\ufffd') || bomOrder ? head.slice(2) : head;
  const nuls = [...body].filter((char) => char === '\u0000').length;
  const nulHeavy = body.length > 0 && nuls / body.length > NUL_SHARE;
  if (bomOrder) return encodingRefusal(`UTF-16 ${bomOrder}`);
  if (!nulHeavy) return null;
  // Little-endian puts the zero byte after each ASCII character, big-endian before it.
  const order = body.charCodeAt(0) === 0 ? 'BE' : body.charCodeAt(1) === 0 ? 'LE' : null;
  return encodingRefusal(order ? `UTF-16 ${order}` : 'UTF-16');
}

/** The separator the header line uses: the more frequent of `;` and `,` outside quotes (`,` on a tie). */
export function detectSeparator(text: string): CsvSeparator {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas += 1;
    else if (!quoted && char === ';') semicolons += 1;
  }
  return semicolons > commas ? ';' : ',';
}

/** The one sentence for a row whose cell count differs from the header's (both importers). */
export function cellCountProblem(cells: number, headerCells: number): { message: string; params: { cells: number; header: number } } | null {
  if (cells === headerCells) return null;
  return { message: `has ${cells} cells where the header has ${headerCells}`, params: { cells, header: headerCells } };
}

function prepare(input: string): { ok: true; text: string; separator: CsvSeparator } | { ok: false; problem: CsvFileProblem } {
  const problem = encodingProblem(input);
  if (problem) return { ok: false, problem };
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  return { ok: true, text, separator: detectSeparator(text) };
}

function errorOf(error: Papa.ParseError, recordsBefore: number): CsvRecords['errors'][number] | null {
  // A one-column file has no separator to find: not an error of the file.
  if (error.code === 'UndetectableDelimiter') return null;
  return { row: recordsBefore + (error.row ?? 0) + 1, kind: error.type === 'Quotes' ? 'quotes' : 'other', message: error.message };
}

/** The whole text at once (a batch file: at most 10,000 rows). */
export function readCsv(input: string): CsvReadResult {
  const prepared = prepare(input);
  if (!prepared.ok) return prepared;
  const parsed = Papa.parse<string[]>(prepared.text, { delimiter: prepared.separator, skipEmptyLines: false, header: false });
  const errors = parsed.errors.flatMap((error) => errorOf(error, 0) ?? []);
  return { ok: true, file: { separator: prepared.separator, records: parsed.data, errors } };
}

/**
 * The text in 32 KiB chunks, awaiting `betweenChunks` after each (main yields to its event loop,
 * so a 100,000-row file never holds it long); stops reading after `maxRecords` records, and when
 * `betweenChunks` answers false (cancelled).
 */
export function readCsvInChunks(input: string, options: { betweenChunks: () => Promise<boolean>; maxRecords: number }): Promise<CsvReadResult> {
  const prepared = prepare(input);
  if (!prepared.ok) return Promise.resolve(prepared);
  return new Promise((resolve, reject) => {
    const records: string[][] = [];
    const errors: CsvRecords['errors'] = [];
    Papa.parse<string[]>(prepared.text, {
      delimiter: prepared.separator,
      chunkSize: 32 * 1024,
      skipEmptyLines: false,
      chunk(results: Papa.ParseResult<string[]>, parser: Papa.Parser) {
        // Papaparse's error row is relative to the chunk: the records before it place it.
        for (const error of results.errors) {
          const found = errorOf(error, records.length);
          if (found) errors.push(found);
        }
        for (const record of results.data) records.push(record);
        if (records.length > options.maxRecords) {
          parser.abort();
          return;
        }
        parser.pause();
        options.betweenChunks().then((go) => (go ? parser.resume() : parser.abort()), reject);
      },
      complete: () => resolve({ ok: true, file: { separator: prepared.separator, records, errors } }),
      error: (error: Error) => reject(error),
    });
  });
}
