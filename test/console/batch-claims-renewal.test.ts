/**
 * How the runner keeps a row's claim before its POST (electron/console/batch/claims.ts), on the
 * SQLite store of a real journal file, the clock a virtual one: no renewal while less than half
 * the lease has passed since the claim was asked, the whole claim renewed past half (then not again for another half), and a row whose
 * lease ran out is not kept, nor is anything else of its claim handed out. Every claim is released
 * when the run ends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowClaims } from '../../electron/console/batch/claims';
import { openJournal } from '../../electron/console/journal/entries';
import type { StoragePort } from '../../electron/console/storage/port';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import { checkedRows, PROFILE } from '../storage/fixtures';
import { makeTempDir } from '../temp-dir';
import { virtualClock } from './helpers';

const LEASE = 60_000;

async function sendingBatch(rows = 4): Promise<{ store: StoragePort; renewals: (readonly number[] | undefined)[] }> {
  const dir = makeTempDir('paydesk-renewal-');
  const store = sqliteStore(openJournal(join(dir, 'journal.db')), { settingsFile: join(dir, 'settings.json') });
  await store.batches.create({ id: 'rn', fileName: 'f.csv', fileHash: 'rn', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(rows), at: 0 });
  await store.batches.setState('rn', 'sending', 0);
  const renewals: (readonly number[] | undefined)[] = [];
  const renew = store.batches.renewClaims.bind(store.batches);
  store.batches.renewClaims = (batchId, holder, leaseMs, at, rowNumbers) => {
    renewals.push(rowNumbers);
    return renew(batchId, holder, leaseMs, at, rowNumbers);
  };
  return { store, renewals };
}

describe('keeping a claimed row before its POST', () => {
  it('renews nothing before half the lease, then the whole claim, then nothing for another half', async () => {
    const clock = virtualClock();
    const { store, renewals } = await sendingBatch();
    const claims = rowClaims(store.batches, 'rn', clock, { holder: 'desk', size: 4, leaseMs: LEASE });
    const first = (await claims.next())!;
    // (The virtual clock also moves with real time: a second's margin.)
    clock.advance(LEASE / 2 - 1_000);
    expect(await claims.keep(first)).toBe(true);
    expect(renewals).toEqual([]);
    const second = (await claims.next())!;
    clock.advance(1_000);
    expect(await claims.keep(second)).toBe(true);
    // The whole claim (no row numbers): its rows still waiting their turn keep their lease too.
    expect(renewals).toEqual([undefined]);
    const third = (await claims.next())!;
    clock.advance(LEASE / 2 - 1_000);
    expect(await claims.keep(third)).toBe(true);
    expect(renewals).toEqual([undefined]);
    await store.close();
  });

  it('keeps no row whose lease ran out, and hands out nothing more of its claim', async () => {
    const clock = virtualClock();
    const { store } = await sendingBatch();
    const claims = rowClaims(store.batches, 'rn', clock, { holder: 'desk', size: 4, leaseMs: LEASE });
    const first = (await claims.next())!;
    expect(await claims.keep(first)).toBe(true);
    clock.advance(LEASE + 1);
    await store.batches.expireClaims(clock.now());
    // Another sender takes the rest while this console's lease is gone.
    const other = await store.batches.claimRows('rn', 'other-desk', 10, 100 * LEASE, clock.now());
    expect(other.rows).toHaveLength(4);
    const second = (await claims.next())!;
    expect(await claims.keep(second)).toBe(false);
    // The claim is lost: the next row is not from it, and none is left to claim.
    expect(await claims.next()).toBeNull();
    await store.close();
  });

  it('releases every claim when the run ends, and a later run takes the rows in row order', async () => {
    const clock = virtualClock();
    const { store } = await sendingBatch(8);
    const claims = rowClaims(store.batches, 'rn', clock, { holder: 'desk', size: 4, leaseMs: LEASE });
    expect((await claims.next())?.row.rowNumber).toBe(checkedRows(8)[0]!.rowNumber);
    // Two of four handed out, then the run ends: its claim is released.
    const second = claims.next();
    await claims.releaseAll();
    expect((await second)?.row.rowNumber).toBe(checkedRows(8)[1]!.rowNumber);
    expect((await store.batches.claimRows('rn', 'other-desk', 10, LEASE, clock.now())).rows).toHaveLength(8);
    await store.batches.releaseClaims('rn', 'other-desk', checkedRows(8).map((row) => row.rowNumber));

    const again = rowClaims(store.batches, 'rn', clock, { holder: 'desk-2', size: 4, leaseMs: LEASE });
    const numbers: number[] = [];
    for (let row = await again.next(); row; row = await again.next()) numbers.push(row.row.rowNumber);
    expect(numbers).toEqual(checkedRows(8).map((row) => row.rowNumber));
    await store.close();
  });
});
