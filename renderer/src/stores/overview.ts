/**
 * Overview store: the active profile's figures for today and the last 7 days. The day boundaries
 * are computed here, where the user's time zone is known, and sent to main as ISO instants.
 * Pushes (`transaction:changed`) ask for a refresh; bursts are throttled to one fetch per second.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, OverviewResult, PaydeskApi, Result } from '../../../shared/api';
// Values from plain.ts, not shared/api: the stores are in the first chunk, zod is not (issue 28).
import { OVERVIEW_DAYS } from '../../../shared/api/plain';

/** At most one refresh per this many ms while pushes keep coming (a batch of settlements, a watch). */
export const OVERVIEW_REFRESH_MS = 1000;

/**
 * The start of each of the last 7 days in the user's time zone (today last), then the start of
 * tomorrow. `new Date(y, m, d)` is local midnight, so a daylight-saving day is 23 or 25 hours.
 */
export function localDayBoundaries(now: Date): string[] {
  const y = now.getFullYear();
  const m = now.getMonth();
  const d = now.getDate();
  return Array.from({ length: OVERVIEW_DAYS + 1 }, (_, i) => new Date(y, m, d - (OVERVIEW_DAYS - 1) + i).toISOString());
}

/**
 * Performance marks the bench and the E2E read: request sent, answer in, figures (cards and
 * tables) drawn, charts drawn (`drawn`: the whole screen).
 */
export const OVERVIEW_MARKS = { request: 'paydesk:overview:request', data: 'paydesk:overview:data', figures: 'paydesk:overview:figures', drawn: 'paydesk:overview:drawn' } as const;

function mark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(name);
}

export interface OverviewState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: OverviewResult | null;
  error: ApiFailure | null;
  /** Bumped on every answer applied, so the charts know when they have drawn new figures. */
  version: number;
  /**
   * Fetches the figures. `reuseInFlight`: the screen (re)mounting while the same request is on
   * its way waits for that one instead of asking main twice, and takes an answer for the same days
   * that landed under OVERVIEW_REFRESH_MS ago as it is (the request main.tsx sends at start, before
   * the screen is mounted, may have answered first).
   */
  load(options?: { reuseInFlight?: boolean; forget?: boolean }): Promise<void>;
  /** A push said the journal changed: refresh, at most once per OVERVIEW_REFRESH_MS. */
  changed(): void;
  /** The screen went away: no more refreshes until it loads again. */
  stop(): void;
}

export function createOverviewStore(api: PaydeskApi, now: () => Date = () => new Date()) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastFetch = 0;
  let serial = 0;
  let inFlight: { key: string; answer: Promise<Result<OverviewResult>> } | null = null;
  let landed: { key: string; at: number } | null = null;
  return createStore<OverviewState>()((set, get) => ({
    status: 'idle',
    data: null,
    error: null,
    version: 0,
    async load(options = {}) {
      const mine = (serial += 1);
      // `forget`: another profile is active; its figures must not stand under the new profile's name.
      if (options.forget) {
        inFlight = null;
        set({ status: 'loading', data: null, error: null });
      } else if (get().status !== 'ready') set({ status: 'loading' });
      const dayBoundaries = localDayBoundaries(now());
      const key = dayBoundaries.join();
      if (options.reuseInFlight && !inFlight && get().status === 'ready' && landed?.key === key && Date.now() - landed.at < OVERVIEW_REFRESH_MS) return;
      let answer = options.reuseInFlight && inFlight?.key === key ? inFlight.answer : null;
      if (!answer) {
        lastFetch = Date.now();
        mark(OVERVIEW_MARKS.request);
        const started = api.invoke('overview:get', { dayBoundaries });
        inFlight = { key, answer: started };
        void started.finally(() => {
          if (inFlight?.answer === started) inFlight = null;
        });
        answer = started;
      }
      const result = await answer;
      // A later load (a profile switch, a push) may have answered first: keep the newest.
      if (mine !== serial || get().status === 'idle') return;
      mark(OVERVIEW_MARKS.data);
      landed = result.ok ? { key, at: Date.now() } : null;
      set(result.ok ? { status: 'ready', data: result.value, error: null, version: get().version + 1 } : { status: 'error', error: result.error });
    },
    changed() {
      if (get().status === 'idle' || timer) return;
      const wait = Math.max(0, lastFetch + OVERVIEW_REFRESH_MS - Date.now());
      timer = setTimeout(() => {
        timer = null;
        if (get().status !== 'idle') void get().load();
      }, wait);
    },
    stop() {
      landed = null;
      if (timer) clearTimeout(timer);
      timer = null;
      serial += 1;
      set({ status: 'idle' });
    },
  }));
}
export type OverviewStore = ReturnType<typeof createOverviewStore>;
