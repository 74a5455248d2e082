/**
 * The journal's scoped lookups by id read the id's own index, not the profile's rows: SQLite's
 * planner, with no statistics, prefers `entries_overview` (two equalities) and scans a profile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openJournal, SCOPED_BY_EXTERNAL_ID, SCOPED_BY_TRANSACTION_ID } from '../../electron/console/journal/entries';

const dir = mkdtempSync(join(tmpdir(), 'paydesk-plans-'));
const db = openJournal(join(dir, 'journal.db'));
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function plan(sql: string): string {
  const params = sql.split('?').slice(1).map(() => 'x');
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
}

describe('journal lookups by id within a profile', () => {
  it('finds a merchant row by external id through its index (Reconcile matches every row this way)', () => {
    expect(plan(SCOPED_BY_EXTERNAL_ID)).toMatch(/^SEARCH entries USING INDEX entries_by_external_id \(external_id=\?\)/);
  });
  it('finds a transaction by its id through its index (a lookup, an engine event)', () => {
    expect(plan(SCOPED_BY_TRANSACTION_ID)).toMatch(/^SEARCH entries USING INDEX entries_by_transaction_id \(transaction_id=\?\)/);
  });
});
