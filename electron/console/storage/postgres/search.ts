/**
 * History's search in a team workspace: the same filters and the same search box as the SQLite
 * journal (../../journal/search.ts, text-search.ts). The box's text matches a transaction id
 * exactly, or every word (case and accents aside) somewhere in the external id, phone number or
 * name through the pg_trgm GIN index on `search_text` (migration 5); text that reads as a phone
 * number also matches by its digits. Shorter words keep the exact and prefix matches.
 */
import type { SearchPage, SearchQuery } from '../../../../shared/api';
import { toJournalTransaction, type EntryRow } from '../../journal/rows';
import { fold } from '../../journal/text-search';
import type { Queryable } from './db';
import { paidLaterWorkspace } from './paid-later';

const TRIGRAM = 3;
const PHONE_LIKE = /^[+\d\s().-]+$/;

/** Characters of a word's end that drive the trigram index (4 trigrams). */
const DRIVER = 6;
const driver = (word: string) => [...word].slice(-DRIVER).join('');

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

export function whereClause(query: SearchQuery): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    // `$?` marks each parameter in order; numbered here.
    clauses.push(
      sql.replace(/\$\?/g, () => {
        params.push(values.shift());
        return `$${params.length}`;
      }),
    );
  };
  if (query.transactionId) add('transaction_id = $?', query.transactionId);
  if (query.externalId) add('external_id = $?', query.externalId);
  if (query.phoneNumber) add('phone_number = $?', query.phoneNumber);
  if (query.status) add('status = $?', query.status);
  if (query.state) add('state = $?', query.state);
  if (query.kind) add('kind = $?', query.kind);
  if (query.profileId) add('profile_id = $?', query.profileId);
  if (query.from) add('created_at >= $?', Date.parse(query.from));
  if (query.to) add('created_at <= $?', Date.parse(query.to));
  if (query.minAmount !== undefined) add('amount >= $?', query.minAmount);
  if (query.maxAmount !== undefined) add('amount <= $?', query.maxAmount);
  const text = query.text?.trim();
  if (text) {
    const words = text.split(/\s+/).filter(Boolean);
    const digits = text.replace(/\D/g, '');
    const phoneLike = PHONE_LIKE.test(text) && digits.length >= TRIGRAM;
    if (!phoneLike && words.every((word) => [...word].length < TRIGRAM)) {
      const prefix = `${escapeLike(text.toLowerCase())}%`;
      add(
        `(transaction_id = $? OR external_id = $? OR phone_number = $? OR lower(customer_last_name) LIKE $? OR lower(customer_first_name) LIKE $?)`,
        text,
        text,
        text,
        prefix,
        prefix,
      );
    } else {
      const contains = (word: string) => `%${escapeLike(word)}%`;
      // Each word drives the trigram index by its END only (ids and phone numbers share their
      // start: "sal-2026-", "+237"; their counters are rare), as the journal's search drives FTS5
      // by its rarest trigrams; the whole word is then checked on the rows found, on
      // `search_text || ''`: the same text, not indexable, so PostgreSQL checks it instead of
      // intersecting every trigram's posting list (bench/storage.ts, 1M rows).
      const word = () => `search_text LIKE $? AND (search_text || '') LIKE $?`;
      const wordParams = (folded: string) => [contains(driver(folded)), contains(folded)];
      if (phoneLike) {
        // As the journal's search: the digits in the phone column, or the text itself anywhere
        // ("2026-11-018" reads as a phone number and is part of an external id).
        const whole = fold(text);
        add(
          `(transaction_id = $? OR (search_text LIKE $? AND phone_number LIKE $?) OR (${word()}))`,
          text,
          contains(driver(digits)),
          contains(digits),
          ...wordParams(whole),
        );
      } else {
        const folded = words.map(fold);
        add(`(transaction_id = $? OR (${folded.map(() => word()).join(' AND ')}))`, text, ...folded.flatMap(wordParams));
      }
    }
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export async function searchWorkspace(c: Queryable, query: SearchQuery, offset: number, limit: number): Promise<SearchPage> {
  const { sql, params } = whereClause(query);
  const n = params.length;
  const { rows } = await c.query<EntryRow>(`SELECT * FROM entries ${sql} ORDER BY created_at DESC, seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, limit, offset]);
  // A short first page is the whole result: no second pass to count it.
  const total =
    offset === 0 && rows.length < limit ? rows.length : Number((await c.query<{ n: number }>(`SELECT count(*) AS n FROM entries ${sql}`, params)).rows[0]!.n);
  // The same "refused, paid later" mark as the journal's search (../../journal/search.ts).
  return { rows: await paidLaterWorkspace(c, rows.map(toJournalTransaction)), total, offset, limit };
}
