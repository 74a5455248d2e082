/**
 * The one CSV writer of every file Paydesk exports (History, batch template, invalid rows, batch
 * report, Reconcile). Every cell is quoted, so a cell holding the other separator (`sep;=2+5;x` in
 * a `,` file opened by a French Excel that splits on `;`) stays one cell of text. A text cell that
 * a spreadsheet would run as a formula, one that starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return, gets a leading `'`: the check looks at the cell's first character only, so a
 * value with a line break inside (`=HYPERLINK("…",⏎"open")`) is guarded as a whole, where
 * papaparse's `escapeFormulae` regex stopped at the line break. Phone numbers (`+237…`) are text
 * like any other and read `'+237650000001` in a spreadsheet: the full number with its `+`, never
 * turned into 2.38E+11 (README, Decisions). Our importers remove the guard again (`unguardCell`).
 * Numbers are data, written as they are: a negative amount is not a formula.
 */

export type CsvValue = string | number | null | undefined;

/** Makes Excel read the file as UTF-8 (accents in names). */
export const CSV_BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;

/** Text a spreadsheet would run as a formula, with a leading `'`; other text as it is. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A cell as the user meant it: the guard `guardFormula` added is removed (importing our own exports). */
export function unguardCell(text: string): string {
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}

/** One cell, always quoted (RFC 4180 doubling of `"`); null and undefined are empty. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '""';
  const text = typeof value === 'number' ? String(value) : guardFormula(value);
  return `"${text.replace(/"/g, '""')}"`;
}

export interface CsvOptions {
  delimiter: ',' | ';';
  /** Start with the UTF-8 byte order mark; default true. */
  bom?: boolean;
}

/** The whole file: header line, one line per row, CRLF line ends (a final one too). */
export function writeCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>, options: CsvOptions): string {
  const line = (cells: readonly CsvValue[]) => cells.map(csvCell).join(options.delimiter);
  const lines = [line(header)];
  for (const row of rows) lines.push(line(row));
  return `${options.bom === false ? '' : CSV_BOM}${lines.join('\r\n')}\r\n`;
}
