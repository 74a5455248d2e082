/**
 * What the renderer asks for at start (issue 28): the profiles are asked for before React has drawn
 * anything and the shell takes that request; the reading screens' chunks are fetched when the page
 * is idle, one after the other.
 */
import { describe, expect, it } from 'vitest';
import { PREFETCHED_SCREENS, SCREEN_CHUNKS, prefetchScreensWhenIdle } from '../../renderer/src/screenChunks';
import { createProfilesStore } from '../../renderer/src/stores/profiles';
import { createFakeApi, deferred, ok, profile } from './fakeApi';

describe('start requests', () => {
  it('the shell takes the profiles request main.tsx started; a later plain load asks again', async () => {
    const held = deferred<ReturnType<typeof ok<{ profiles: ReturnType<typeof profile>[]; activeId: string }>>>();
    const api = createFakeApi({ 'profiles:list': () => held.promise });
    const store = createProfilesStore(api);
    const atStart = store.getState().load();
    const fromShell = store.getState().load({ reuseStarted: true });
    expect(api.callsOf('profiles:list')).toHaveLength(1);
    held.resolve(ok({ profiles: [profile({ id: 'local' })], activeId: 'local' }));
    await Promise.all([atStart, fromShell]);
    expect(store.getState()).toMatchObject({ status: 'ready', activeId: 'local' });
    api.handlers['profiles:list'] = () => ok({ profiles: [profile({ id: 'local' })], activeId: 'local' });
    await store.getState().load();
    expect(api.callsOf('profiles:list')).toHaveLength(2);
  });

  it('fetches the reading screens one idle period each, the next only once the previous is in', async () => {
    const idle: (() => void)[] = [];
    const win = { setTimeout: globalThis.setTimeout, requestIdleCallback: (run: () => void) => idle.push(run) } as never;
    expect(PREFETCHED_SCREENS).toEqual(['history', 'lookup', 'timeline']);
    prefetchScreensWhenIdle(PREFETCHED_SCREENS, win);
    for (const [index, screen] of PREFETCHED_SCREENS.entries()) {
      // One idle callback waits at a time: the chunks never load all at once.
      await expect.poll(() => idle.length).toBe(index + 1);
      idle[index]!();
      await expect.poll(() => SCREEN_CHUNKS[screen].loaded() !== null).toBe(true);
    }
    await new Promise((done) => setTimeout(done, 0));
    expect(idle).toHaveLength(PREFETCHED_SCREENS.length);
  });
});
