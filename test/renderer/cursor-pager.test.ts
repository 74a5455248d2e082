/**
 * The cursor pager under the request inspector and the webhook deliveries (stores/pages.ts): one
 * call at a time, so a "load more" asked while a poll's refresh is out follows the refresh's
 * cursor and the list has no gap or repeat, whatever arrived meanwhile.
 */
import { describe, expect, it } from 'vitest';
import type { Result } from '../../shared/api';
import { createCursorPager, type CursorRows } from '../../renderer/src/stores/pages';
import { ok } from './fakeApi';

type Page = { rows: number[]; nextCursor: string | null };

/** A service holding 1..held, newest first; the cursor is the last row given, so it stays put as new rows arrive (as the engine's does). */
function service(held: number) {
  const state = { held };
  const pageOf = (cursor: string | undefined, limit: number): Page => {
    const below = cursor === undefined ? state.held + 1 : Number(cursor);
    const rows = Array.from({ length: state.held }, (_, i) => state.held - i).filter((row) => row < below).slice(0, limit);
    const last = rows[rows.length - 1];
    return { rows, nextCursor: last !== undefined && last > 1 ? String(last) : null };
  };
  return { state, pageOf };
}

describe('cursor pager', () => {
  it('asks a "load more" after the refresh that was out, so new rows leave no gap', async () => {
    const { state, pageOf } = service(30);
    let store: CursorRows<number> = { rows: [], nextCursor: null };
    const waiting: (() => void)[] = [];
    const pager = createCursorPager<number, Page>({
      pageSize: 10,
      maxHeld: 100,
      maxLimit: 100,
      get: () => store,
      set: (patch) => (store = { ...store, ...patch }),
      idOf: (row) => String(row),
      // Each page is answered when the test says, from the service as it is then.
      fetch: (cursor, limit) =>
        new Promise<Result<Page>>((resolve) => waiting.push(() => resolve(ok(pageOf(cursor, limit))))),
    });
    const answerNext = async () => {
      await new Promise((r) => setTimeout(r, 0));
      waiting.shift()!();
    };

    const started = pager.restart();
    await answerNext();
    await started;
    expect(store.rows).toEqual([30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);

    const refreshed = pager.refresh();
    const more = pager.more();
    state.held = 33; // three new rows while the refresh is out
    await answerNext();
    await refreshed;
    await answerNext();
    await more;
    expect(store.rows).toEqual(Array.from({ length: 20 }, (_, i) => 33 - i));
    expect(store.nextCursor).toBe('14');
  });
});
