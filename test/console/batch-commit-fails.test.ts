/**
 * A batch row whose pending entry is lost at COMMIT is never sent (issue 35 item 5): the journal's
 * group commit (electron/console/journal/group-commit.ts) rejects every write of a group whose
 * COMMIT fails, so the runner, which awaits the row's pending entry before its POST, sends
 * nothing for it; the run stops, and Resume (the COMMIT working again) sends the row once.
 *
 * The COMMIT is made to fail for real on the console's own journal connection: a TEMP trigger
 * leaves a deferred foreign key dangling when the row's entry is inserted, and SQLite refuses the
 * COMMIT (SQLITE_CONSTRAINT_FOREIGNKEY). The real engine behind a gate proxy counts the POSTs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchCsv, batchReaches, resumedBatchReaches, withRows } from './batch-helpers';
import { expectOk } from './helpers';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;

beforeAll(async () => {
  s = await startProxiedConsole('paydesk-commit-fails-');
});
afterAll(async () => {
  await s?.close();
});

/** From now on, any group that inserts the entry of `externalId` fails at its COMMIT. */
function failCommitsWriting(externalId: string): () => void {
  const db = s.runtime.journal;
  db.exec(`
    CREATE TEMP TABLE commit_gate_parent (id INTEGER PRIMARY KEY);
    CREATE TEMP TABLE commit_gate_child (parent INTEGER REFERENCES commit_gate_parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  db.prepare(`CREATE TEMP TRIGGER commit_gate AFTER INSERT ON main.entries WHEN NEW.external_id = '${externalId.replace(/'/g, "''")}'
    BEGIN INSERT INTO commit_gate_child (parent) VALUES (1); END`).run();
  return () => db.exec('DROP TRIGGER temp.commit_gate; DROP TABLE temp.commit_gate_child; DROP TABLE temp.commit_gate_parent;');
}

describe('a batch row whose pending entry fails at COMMIT', () => {
  it('is never POSTed and has no entry; the run stops, and Resume sends it once', async () => {
    const { runtime } = s;
    const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'commit.csv', text: batchCsv(3, { phone: () => '+237650000001', tag: 'commit' }), paymentMethod: 'momo_cm' }));
    const row2 = `${batch.id}-3`;
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
    const stopped = batchReaches(runtime, batch.id, ['done', 'interrupted', 'cancelled']);
    const restore = failCommitsWriting(row2);
    let progress: Awaited<typeof stopped>;
    try {
      expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 1 }));
      progress = await stopped;
    } finally {
      restore();
    }
    expect(progress.state).toBe('interrupted');
    expect(s.postsFor(row2)).toBe(0);
    expect(s.engineCount(row2)).toBe(0);
    expect(runtime.journal.prepare('SELECT COUNT(*) AS n FROM entries WHERE external_id = ?').get(row2)).toEqual({ n: 0 });
    const stoppedRows = await withRows(runtime.handlers, batch.id);
    expect(stoppedRows.rows.map((row) => row.state)).toEqual(['pending', 'not_sent', 'not_sent']);
    expect(stoppedRows.rows[1]!.externalId).toBe(row2);
    expect(stoppedRows.rows[1]!.journalId ?? null).toBeNull();

    // The group that failed also held row 1's answer (its POST had left): that entry stays
    // pending in this run (never sent again while it is); a console started again makes it
    // outcome unknown, looks it up by its external id, and Resume sends only what never left.
    const runtimeAgain = await s.restart();
    await runtimeAgain.followUpsIdle();
    const done = resumedBatchReaches(runtimeAgain, batch.id, ['done', 'interrupted']);
    expectOk(await runtimeAgain.handlers['batches:resume']({ batchId: batch.id }));
    expect((await done).state).toBe('done');
    const sent = await withRows(runtimeAgain.handlers, batch.id);
    expect(sent.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted']);
    for (const row of sent.rows) {
      expect(s.postsFor(row.externalId)).toBe(1);
      expect(s.engineCount(row.externalId)).toBe(1);
    }
  });
});
