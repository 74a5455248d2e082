/**
 * A single send goes through the storage port (issue 24) and still writes its journal entry
 * before its POST: with the journal file write-locked by another connection, the pending entry
 * cannot be committed, so a payment, or the resend of one looked up and not found, fails with
 * nothing at the service; once the lock is gone the same external id is sent, once. The real
 * engine behind a gate proxy (./proxied-console.ts).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectOk, paymentRequest } from './helpers';
import { SERVER_ERROR } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;
beforeAll(async () => {
  s = await startProxiedConsole('paydesk-send-journal-first-');
});
afterAll(async () => {
  await s?.close();
});

/** Runs `work` while another connection holds the journal's write lock (the console gives up at once). */
async function whileJournalLocked<T>(work: () => Promise<T>): Promise<T> {
  const locker = new Database(join(s.dir, 'console', 'journal.db'), { fileMustExist: true });
  s.runtime.journal.pragma('busy_timeout = 0');
  locker.exec('BEGIN IMMEDIATE');
  try {
    return await work();
  } finally {
    locker.exec('ROLLBACK');
    locker.close();
    s.runtime.journal.pragma('busy_timeout = 5000');
  }
}

it('does not send a payment whose pending entry cannot be committed; sent once when it can', async () => {
  const request = paymentRequest({ external_id: 'ORDER-locked-1' });
  const refused = await whileJournalLocked(() => s.runtime.handlers['payments:create']({ request }));
  expect(refused.ok).toBe(false);
  expect(s.postsFor('ORDER-locked-1')).toBe(0);
  expect(s.engineCount('ORDER-locked-1')).toBe(0);
  const sent = expectOk(await s.runtime.handlers['payments:create']({ request }));
  expect(sent).toMatchObject({ state: 'known', externalId: 'ORDER-locked-1' });
  expect(s.postsFor('ORDER-locked-1')).toBe(1);
  expect(s.engineCount('ORDER-locked-1')).toBe(1);
});

it('does not resend a payment whose entry cannot be made pending again; resent once, same external id, when it can', async () => {
  // A 503 that never reached the engine: outcome unknown, then looked up and not found.
  s.proxy.decide = (request) => (request.method === 'POST' ? SERVER_ERROR({ forward: false }) : 'forward');
  const failed = await s.runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-locked-2' }) });
  s.proxy.decide = () => 'forward';
  expect(failed.ok ? null : failed.error.code).toBe('OUTCOME_UNKNOWN');
  const journalId = failed.ok ? '' : failed.error.journalId!;
  expect(expectOk(await s.runtime.handlers['transactions:resolveUnknown']({ journalId })).exists).toBe(false);
  const postsBefore = s.postsFor('ORDER-locked-2');

  const refused = await whileJournalLocked(() => s.runtime.handlers['transactions:resend']({ journalId }));
  expect(refused.ok).toBe(false);
  expect(s.postsFor('ORDER-locked-2')).toBe(postsBefore);
  expect(s.engineCount('ORDER-locked-2')).toBe(0);

  expect(expectOk(await s.runtime.handlers['transactions:resend']({ journalId }))).toMatchObject({ id: journalId, state: 'known', externalId: 'ORDER-locked-2' });
  expect(s.postsFor('ORDER-locked-2')).toBe(postsBefore + 1);
  expect(s.engineCount('ORDER-locked-2')).toBe(1);
});
