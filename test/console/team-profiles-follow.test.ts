/**
 * The console's half of team profiles live (electron/console/team-profiles-live.ts), on a store's
 * change bundle: a profile change or `everything` (the workspace connection came back) reads the
 * definitions again and then tells the screens; a journal change alone reads nothing; a change heard
 * while a read is under way gives one more read after it, never two at once.
 */
import { describe, expect, it } from 'vitest';
import { changeBundle } from '../../electron/console/storage/changes-port';
import { followTeamProfiles } from '../../electron/console/team-profiles-live';

/** Lets the bundle deliver (setImmediate) and the reads settle. */
const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

function follower() {
  const bundle = changeBundle();
  const log: string[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const stop = followTeamProfiles(bundle.port, {
    refresh: async () => {
      log.push('read');
      if (hold) await new Promise<void>((resolve) => (release = resolve));
    },
    changed: () => log.push('pushed'),
    failed: () => log.push('failed'),
  });
  return { bundle, log, stop, holdReads: () => (hold = true), release: () => { hold = false; release?.(); } };
}

describe('following team profiles', () => {
  it('reads them again on a profile change or everything, then pushes; not on a journal change', async () => {
    const f = follower();
    f.bundle.add([{ kind: 'entry', id: 'e1', batchId: null }]);
    await settle();
    expect(f.log).toEqual([]);
    f.bundle.add([{ kind: 'profile', id: 'team-x', batchId: null }]);
    await settle();
    expect(f.log).toEqual(['read', 'pushed']);
    f.bundle.add([{ kind: 'everything' }]);
    await settle();
    expect(f.log).toEqual(['read', 'pushed', 'read', 'pushed']);
    f.stop();
    f.bundle.add([{ kind: 'profile', id: 'team-x', batchId: null }]);
    await settle();
    expect(f.log).toHaveLength(4);
  });

  it('reads once more after a read under way when another change is heard, never twice at once', async () => {
    const f = follower();
    f.holdReads();
    f.bundle.add([{ kind: 'profile', id: 'a', batchId: null }]);
    await settle();
    f.bundle.add([{ kind: 'profile', id: 'b', batchId: null }]);
    await settle();
    f.bundle.add([{ kind: 'profile', id: 'c', batchId: null }]);
    await settle();
    expect(f.log).toEqual(['read']);
    f.release();
    await settle();
    await settle();
    expect(f.log).toEqual(['read', 'pushed', 'read', 'pushed']);
  });

  it('says a failed read and stays ready for the next change', async () => {
    const bundle = changeBundle();
    const log: string[] = [];
    let fail = true;
    followTeamProfiles(bundle.port, {
      refresh: async () => {
        if (fail) throw new Error('away');
      },
      changed: () => log.push('pushed'),
      failed: (error) => log.push(`failed: ${(error as Error).message}`),
    });
    bundle.add([{ kind: 'profile', id: 'a', batchId: null }]);
    await settle();
    fail = false;
    bundle.add([{ kind: 'everything' }]);
    await settle();
    expect(log).toEqual(['failed: away', 'pushed']);
  });
});
