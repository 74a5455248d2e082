/**
 * The check a spreadsheet opening a CSV with the wrong separator would fail: split the written
 * file at every place a cell may start under any common separator (`,`, `;`, tab, line breaks),
 * drop the quotes and spaces a field may open with, and name every piece that would run as a
 * formula. Numbers written as data (`-250`) are numbers, not formulas.
 */
import fc from 'fast-check';

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^-?\d+(\.\d+)?"*$/;

export function formulaPieces(csv: string): string[] {
  const text = csv.startsWith('\uFEFF') ? csv.slice(1) : csv;
  // The file's own line ends first; then splitting on tab or CR would hide a piece that starts
  // with one, so `,` `;` and `\n` give the pieces, and each tab or CR in them starts one more.
  const pieces = text
    .split('\r\n')
    .flatMap((line) => line.split(/[,;\n]/))
    .flatMap((piece) => [piece, ...piece.split(/[\t\r]/).slice(1)]);
  return pieces.map((piece) => piece.replace(/^[" ]*/, '')).filter((piece) => FORMULA_START.test(piece) && !NUMBER.test(piece));
}

/** Text a hostile or careless user may type: formula starts after separators, quotes, line breaks. */
export const hostileText = fc.oneof(
  fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ',', ';', '"', ' ', "'", 'A', 'c', '1', '2', '(', ')', 'é'), maxLength: 24 }),
  fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom(',', ';', '\t', '\n', '\r\n', ', ', ',"', ';""'), fc.constantFrom('=2+5+0', '+1+1', '-2+3', '@SUM(A1)', '=cmd|"/c calc"!A1'))
    .map(([before, separator, formula]) => `${before}${separator}${formula}`),
);
