/**
 * The journal's SQLite group commit (electron/console/journal/group-commit.ts) on a real journal
 * file: a group whose COMMIT fails rejects every write in it and leaves none of them visible; a
 * work that throws is undone alone. The PostgreSQL twin: ./group-commit.test.ts.
 *
 * To make the COMMIT itself fail, for real and every time: a deferred foreign key (checked at
 * COMMIT, never at the statement) that one write leaves dangling. SQLite then refuses the COMMIT
 * with SQLITE_CONSTRAINT_FOREIGNKEY.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournal, type JournalDb } from '../../electron/console/journal/entries';
import { groupCommit } from '../../electron/console/journal/group-commit';
import { tempDir } from '../console/helpers';

let dir: string;
let db: JournalDb;
let reader: Database.Database;

beforeAll(() => {
  dir = tempDir('paydesk-sqlite-group-');
  const file = join(dir, 'journal.db');
  db = openJournal(file);
  db.exec(`
    CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
    CREATE TABLE test_written (n INTEGER PRIMARY KEY, parent INTEGER REFERENCES test_parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  reader = new Database(file, { readonly: true });
});
afterAll(() => {
  reader?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What another connection sees committed. */
const committed = () => (reader.prepare('SELECT n FROM test_written ORDER BY n').all() as { n: number }[]).map((row) => row.n);
const insert = (n: number, parent: number | null = null) => () => db.prepare('INSERT INTO test_written (n, parent) VALUES (?, ?)').run(n, parent).changes;
/** A write of its own db.transaction (as the journal's answers are), run atomic in the group. */
const insertAtomic = (n: number) => () => db.transaction(() => db.prepare('INSERT INTO test_written (n) VALUES (?)').run(n).changes)();

describe('the journal group commit (SQLite)', () => {
  it('commits the writes queued together; a work that throws is undone alone and rejects alone', async () => {
    db.exec('DELETE FROM test_written');
    const group = groupCommit(db);
    const results = await Promise.allSettled([
      group.write(insert(1)),
      group.write(() => {
        insert(2)();
        throw new Error('refused by the state table');
      }),
      group.write(insertAtomic(3), { atomic: true }),
      group.write(insert(1)), // a duplicate key: this statement fails alone
      group.write(insert(4)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(committed()).toEqual([1, 3, 4]);
  });

  it('rejects every write of a group whose COMMIT fails, leaves none of them written, and commits the next group', async () => {
    db.exec('DELETE FROM test_written');
    const group = groupCommit(db);
    // Settled at once (each rejects at the same moment, at the end of the turn).
    const results = await Promise.allSettled([
      group.write(insert(1)),
      group.write(insertAtomic(2), { atomic: true }),
      // Its parent does not exist: the statement passes, the COMMIT is refused.
      group.write(insert(3, 99)),
      group.write(insert(4)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    for (const result of results) expect(String((result as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    expect(committed()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // Nothing of the failed group is left open or pending in the connection: the next group commits alone.
    expect(await group.write(insert(5))).toBe(1);
    expect(committed()).toEqual([5]);
  });
});
