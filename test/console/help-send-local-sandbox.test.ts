/**
 * Help send is refused where the desktops do not share one service: each desktop's Local sandbox is
 * an engine of its own, so rows helped from another desktop would be paid on another service than
 * the batch's other rows (issue 35 item 2). The batch is a real one in a real journal; the join's
 * store says it is a team workspace whose login may send, so only the profile decides.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../electron/console/journal/entries';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import { joinBatch } from '../../electron/console/handlers/batch-controls';
import { HandlerFailure } from '../../electron/console/handlers/context';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { checkedRows, PROFILE } from '../storage/fixtures';
import { makeTempDir } from '../temp-dir';

async function sendingBatchOn(profile: { id: string; name: string; environment: 'sandbox' }) {
  const dir = makeTempDir('paydesk-help-send-');
  const store = sqliteStore(openJournal(join(dir, 'journal.db')), { settingsFile: join(dir, 'settings.json') });
  await store.batches.create({ id: 'hs', fileName: 'f.csv', fileHash: 'hs', profile, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(2), at: 0 });
  await store.batches.setState('hs', 'sending', 0);
  const started: string[] = [];
  const runner = { run: (batchId: string) => void started.push(batchId), isRunning: () => false };
  const join_ = () => joinBatch({ batches: store.batches, now: () => 0 }, { kind: 'postgres', loginRights: async () => ({ sends: true }) }, runner, async () => undefined, 'hs');
  return { join: join_, started };
}

describe('Help send from this desktop', () => {
  it('is refused for a batch on the Local sandbox, with words that say why, and starts nothing', async () => {
    const { join: helpSend, started } = await sendingBatchOn({ id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' });
    const refusal = await helpSend().then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(HandlerFailure);
    expect((refusal as HandlerFailure).code).toBe('CONFLICT');
    expect((refusal as HandlerFailure).message).toMatch(/separate service on each desktop/);
    expect(started).toEqual([]);
  });

  it('starts the runner for a batch on a profile the desktops share', async () => {
    const { join: helpSend, started } = await sendingBatchOn(PROFILE);
    await helpSend();
    expect(started).toEqual(['hs']);
  });
});
