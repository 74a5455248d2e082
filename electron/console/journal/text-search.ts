/**
 * What History's search box matches: a transaction id exactly, or any part of an external id, a
 * phone number or a customer's name, through the trigram index of journal migration 5.
 *
 * Every word of the text must appear in one of those columns, case and accents aside: "ndiaye awa"
 * finds Awa Ndiaye, "SAL-2026-11-018" finds SAL-2026-11-0187. Text that reads as a phone number
 * ("+237 690-00", "237690") is also compared by its digits alone, so the spaces, dashes or `+` a
 * support agent types do not matter. Text with no word of three characters (a trigram index cannot
 * look up less) keeps the exact and prefix matches of the B-tree indexes.
 *
 * Why not one FTS5 phrase per word: a phrase reads the whole doclist of each of its trigrams, and
 * in ids like SAL-2026-11-01873 most trigrams ("SAL", "-20", "026") are in a quarter or all of the
 * rows, so the phrase cost grew with the journal (6 ms at 100k rows, 60 at 1M). Instead each
 * word's rarest trigrams (counted up to a small cap, so a common one costs a bounded read) find
 * the candidates, an AND that FTS5 answers by skipping through the doclists, and the word itself
 * is then checked on those rows (`paydesk_fold`, registered on the connection by openJournal).
 */
import type Database from 'better-sqlite3';

/** The journal's connection (the type entries.ts names JournalDb; named here so the two files do not import each other). */
type JournalDb = Database.Database;

export interface SqlClause {
  sql: string;
  params: unknown[];
  /** True when the rows come from the trigram index (their number is not known from an index count). */
  trigram?: boolean;
}

/** Trigram lookups need this many characters (code points) per word. */
const TRIGRAM = 3;
/** Trigrams counted up to this many rows: past it, a trigram is "common" and never a driver. */
const COUNT_CAP = 1000;
/** A word's candidates come from its this-many rarest trigrams. */
const DRIVERS = 5;
const PHONE_LIKE = /^[+\d\s().-]+$/;

/**
 * Case and accents folded the way the index folds them (trigram tokenizer, case_sensitive 0,
 * remove_diacritics 1) for the letters people type: "Éloïse" -> "eloise".
 */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** An FTS5 string: every character literal (quotes doubled). */
function quoted(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

function trigrams(word: string): string[] {
  const chars = [...word];
  const grams = new Set<string>();
  for (let i = 0; i + TRIGRAM <= chars.length; i += 1) grams.add(chars.slice(i, i + TRIGRAM).join(''));
  return [...grams];
}

/**
 * How many rows hold each trigram, up to COUNT_CAP, per connection: an estimate that only steers
 * which trigrams drive the lookup (the result is exact whatever it says), so it may go stale.
 */
const trigramCounts = new WeakMap<JournalDb, Map<string, number>>();

function rowsWith(db: JournalDb, expression: string): number {
  let counts = trigramCounts.get(db);
  if (!counts) trigramCounts.set(db, (counts = new Map()));
  let rows = counts.get(expression);
  if (rows === undefined) {
    if (counts.size >= 10_000) counts.clear();
    const count = db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM entries_search WHERE entries_search MATCH ? LIMIT ${COUNT_CAP})`);
    rows = (count.get(expression) as { n: number }).n;
    counts.set(expression, rows);
  }
  return rows;
}

/**
 * The FTS5 expression of a word's rarest trigrams (optionally within one column). Ties (common
 * trigrams all at the cap) go to the end of the word: ids and phone numbers share their start
 * (prefix, year, country code) and differ at the end.
 */
function drivers(db: JournalDb, word: string, column?: string): string {
  const scoped = (expression: string) => (column ? `${column} : (${expression})` : expression);
  const ranked = trigrams(word)
    .map((gram, position) => ({ gram, position, rows: rowsWith(db, scoped(quoted(gram))) }))
    .sort((a, b) => a.rows - b.rows || b.position - a.position);
  return scoped(ranked.slice(0, DRIVERS).map(({ gram }) => quoted(gram)).join(' AND '));
}

/**
 * A word (folded) in any searched column. Ids and phone numbers are ASCII (the API's rules), so
 * LIKE (ASCII case-insensitive, in C) decides; a name with a letter outside ASCII (GLOB finds it,
 * in C) is folded in JS first: "tchoupe" finds Tchoupé.
 */
const NAME = `(customer_first_name || ' ' || customer_last_name)`;
const IN_ANY_COLUMN = `(external_id LIKE ? ESCAPE '\\' OR phone_number LIKE ? ESCAPE '\\' OR ${NAME} LIKE ? ESCAPE '\\'
  OR (${NAME} GLOB '*[^ -~]*' AND instr(paydesk_fold(${NAME}), ?) > 0))`;
function inAnyColumn(word: string): unknown[] {
  const like = `%${escapeLike(word)}%`;
  return [like, like, like, word];
}

/** The WHERE part for the search box's text. */
export function textClause(db: JournalDb, text: string): SqlClause {
  const words = text.split(/\s+/).filter(Boolean);
  const digits = text.replace(/\D/g, '');
  const phoneLike = PHONE_LIKE.test(text) && digits.length >= TRIGRAM;
  const long = words.filter((word) => [...word].length >= TRIGRAM);
  if (!phoneLike && long.length === 0) {
    // One or two characters: exact ids, or a name that starts with them (each branch has an index).
    const prefix = `${escapeLike(text)}%`;
    return {
      sql: `(transaction_id = ? OR external_id = ? OR phone_number = ?
        OR customer_last_name LIKE ? ESCAPE '\\' OR customer_first_name LIKE ? ESCAPE '\\')`,
      params: [text, text, text, prefix, prefix],
    };
  }
  if (phoneLike) {
    // The digits in the phone column, or the text itself anywhere ("2026-11-018" reads as a
    // phone number too, and is part of an external id; digits alone may be one too).
    const whole = fold(text);
    const alternatives =
      whole === digits
        ? [{ match: drivers(db, digits), check: IN_ANY_COLUMN, params: inAnyColumn(digits) }]
        : [
            { match: drivers(db, digits, 'phone_number'), check: 'instr(phone_number, ?) > 0', params: [digits] },
            { match: drivers(db, whole), check: IN_ANY_COLUMN, params: inAnyColumn(whole) },
          ];
    const match = alternatives.map((alternative) => `(${alternative.match})`);
    const checks = alternatives.map((alternative) => alternative.check);
    const params = alternatives.flatMap((alternative) => alternative.params);
    return {
      sql: `(transaction_id = ? OR (seq IN (SELECT rowid FROM entries_search WHERE entries_search MATCH ?) AND (${checks.join(' OR ')})))`,
      params: [text, match.join(' OR '), ...params],
      trigram: true,
    };
  }
  const folded = words.map(fold);
  const match = folded.filter((word) => [...word].length >= TRIGRAM).map((word) => `(${drivers(db, word)})`).join(' AND ');
  return {
    sql: `(transaction_id = ? OR (seq IN (SELECT rowid FROM entries_search WHERE entries_search MATCH ?) AND ${folded.map(() => IN_ANY_COLUMN).join(' AND ')}))`,
    params: [text, match, ...folded.flatMap(inAnyColumn)],
    trigram: true,
  };
}
