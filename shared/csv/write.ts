/**
 * The one CSV writer of every file Paydesk exports (History, batch template, invalid rows, batch
 * report, Reconcile). Every cell is quoted. A text cell that a spreadsheet would run as a
 * formula, one that starts with `=`, `+`, `-`, `@`, a tab or a carriage return, gets a leading `'`,
 * so a value with a line break inside (`=HYPERLINK("…",⏎"open")`) is guarded as a whole, where
 * papaparse's `escapeFormulae` regex stopped at the line break. Quoting alone does not hold when
 * the file is opened with the other separator (a `,` file in a French Excel splitting on `;`, or
 * the reverse): `Acme,=2+5+0` then starts a cell at `=2+5+0`. So every place a cell could start
 * under any common separator (after `,`, `;`, a tab or a line break, past any `"` or spaces) is
 * guarded the same way: `Acme,'=2+5+0` (docs/decisions/csv-formula-guard.md). Phone numbers
 * (`+237…`) are text like any other and read `'+237650000001` in a spreadsheet: the full number
 * with its `+`, never turned into 2.38E+11. Our importers remove the guard again (`unguardCell`).
 * Numbers are data, written as they are: a negative amount is not a formula.
 */

export type CsvValue = string | number | null | undefined;

/** Makes Excel read the file as UTF-8 (accents in names). */
export const CSV_BOM = '\uFEFF';

/**
 * Where a spreadsheet may start a cell: the start of the text or just after any common separator
 * or line break (the file may be read with another separator than the one it was written with),
 * when what follows, past any `"` (a quoted field) or spaces, would run as a formula. A `'` the
 * user typed there counts as one of those (`'=1` is written `''=1`), so `unguardCell` gives back
 * exactly the text that was guarded.
 */
const FORMULA_AT_CELL_START = /(?<=^|[,;\t\r\n])(?=['" ]*[=+\-@\t\r])/g;
const GUARD_AT_CELL_START = /(?<=^|[,;\t\r\n])'(?=['" ]*[=+\-@\t\r])/g;

/** Text a spreadsheet would run as a formula under any common separator, with a `'` at each such cell start; other text as it is. */
export function guardFormula(text: string): string {
  return text.replace(FORMULA_AT_CELL_START, "'");
}

/** A cell as the user meant it: the guards `guardFormula` added are removed (importing our own exports). */
export function unguardCell(text: string): string {
  return text.replace(GUARD_AT_CELL_START, '');
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
