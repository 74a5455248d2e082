/**
 * WAL checkpoints run from a worker thread once the log has grown (storage/checkpointer.ts): the
 * database file takes the log's pages back while the request thread's own threshold (16,000 pages
 * while the worker runs) is far from reached, and after stop() the engine's connection, the last
 * one, folds the log back and removes it, with every create kept.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Authenticated } from '../../packages/sandbox/src/auth/auth';
import { startEngine } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { initiateTransaction } from '../../packages/sandbox/src/lifecycle/initiate';
import { AUTOCHECKPOINT_PAGES, openEngineDb } from '../../packages/sandbox/src/storage/db';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../../packages/sandbox/src/storage/checkpointer';
import { DEMO_APP, keysOf, paymentBody, tempDir } from './helpers';

const temp = tempDir();
afterAll(() => temp.cleanup());

/** Past the worker's start (2 MB), far below the request thread's own thresholds (16 MB, 64 MB). */
const GROWN_WAL_BYTES = 3 * 1024 * 1024;

describe('background WAL checkpoints', () => {
  it('copies the log into the database file off the request thread, and leaves every create whole after stop', async () => {
    const file = join(temp.dir, 'checkpoints.db');
    const engine = await startEngine({ db: file, port: 0, settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
    const { db, ctx } = engineInternals(engine);
    const key = keysOf(engine).payment;
    const app = db.prepare('SELECT ref, name, currency FROM applications WHERE id = ?').get(DEMO_APP) as { ref: string; name: string; currency: string };
    const auth: Authenticated = { publicKey: key.publicKey, appId: DEMO_APP, appRef: app.ref, appName: app.name, currency: app.currency, environment: 'sandbox', keyType: 'payment' };
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT_PAGES);
    const fileBefore = statSync(file).size;

    let created = 0;
    // Groups of 8 creates, each group its own commit, until the log has grown (bounded).
    while (statSync(`${file}-wal`).size < GROWN_WAL_BYTES && created < 20_000) {
      await Promise.all(Array.from({ length: 8 }, () => initiateTransaction(ctx, auth, 'payment', paymentBody())));
      created += 8;
    }
    expect(statSync(`${file}-wal`).size).toBeGreaterThanOrEqual(GROWN_WAL_BYTES);

    // The worker starts on its next look at the log, then copies it back: the file grows by those pages.
    for (let waited = 0; statSync(file).size === fileBefore && waited < 200; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    expect(statSync(file).size).toBeGreaterThan(fileBefore);

    await engine.stop();
    // The last connection to close removes the log: the worker's closed first.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = openEngineDb(file);
    try {
      const stored = reopened.prepare('SELECT COUNT(*) FROM transactions').pluck().get() as number;
      const timeline = reopened.prepare('SELECT COUNT(*) FROM transaction_events').pluck().get() as number;
      expect(stored).toBe(created);
      expect(timeline).toBe(2 * created);
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      reopened.close();
    }
  });
});
