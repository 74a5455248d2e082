/**
 * Bursts stay small on their way to the screens: a store's changes heard in one turn reach each
 * listener once, each id once (storage/changes-port.ts), and the runtime forwards them as one
 * `journal:changed` push at most every FORWARD_MS (live-changes.ts), the first at once. Timers are
 * vitest's fake ones: what is asserted is the order of pushes, not how long anything took.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JOURNAL_CHANGED_MAX_IDS, type JournalChanged } from '../../shared/api';
import { changeBundle, type StoreChange } from '../../electron/console/storage/changes-port';
import { FORWARD_MS, forwardChanges } from '../../electron/console/live-changes';

const entry = (id: string, batchId: string | null = null): StoreChange => ({ kind: 'entry', id, batchId });

afterEach(() => {
  vi.useRealTimers();
});

describe('a store’s change bundle', () => {
  it('delivers the changes of one turn once, each id once, a batch named by any of them kept', async () => {
    const bundle = changeBundle();
    const deliveries: StoreChange[][] = [];
    bundle.port.subscribe((changes) => deliveries.push([...changes]));
    for (let i = 0; i < 100; i += 1) bundle.add([entry(`e${i % 10}`, i === 3 ? 'b1' : null)]);
    bundle.add([{ kind: 'everything' }, { kind: 'everything' }]);
    expect(deliveries).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toHaveLength(11);
    expect(deliveries[0]!.find((change) => change.kind === 'entry' && change.id === 'e3')).toEqual(entry('e3', 'b1'));
    expect(deliveries[0]!.filter((change) => change.kind === 'everything')).toHaveLength(1);
  });

  it('keeps delivering to the other listeners when one throws', async () => {
    const errors: unknown[] = [];
    const bundle = changeBundle({ onListenerError: (error) => errors.push(error) });
    const heard: StoreChange[] = [];
    bundle.port.subscribe(() => {
      throw new Error('a screen failed');
    });
    bundle.port.subscribe((changes) => heard.push(...changes));
    bundle.add([entry('e1')]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([entry('e1')]);
    expect(errors).toHaveLength(1);
  });
});

describe('journal:changed forwarding', () => {
  function forwarding() {
    vi.useFakeTimers();
    const bundle = changeBundle();
    const pushes: { at: number; changed: JournalChanged }[] = [];
    const stop = forwardChanges(bundle.port, (changed) => pushes.push({ at: Date.now(), changed }));
    const start = Date.now();
    return { bundle, pushes, stop, start };
  }

  it('sends the first change at once, then bundles what follows into one push every FORWARD_MS', async () => {
    const { bundle, pushes, start } = forwarding();
    bundle.add([entry('e1')]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pushes.map((push) => push.changed.entries)).toEqual([['e1']]);
    // 1,000 rows answered over the next 100 ms, a batch's rows: one push, after FORWARD_MS.
    for (let i = 0; i < 1_000; i += 1) {
      bundle.add([entry(`row-${i % 100}`, 'b1')]);
      if (i % 10 === 9) await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(FORWARD_MS);
    expect(pushes).toHaveLength(2);
    expect(pushes[1]!.at - pushes[0]!.at).toBeGreaterThanOrEqual(FORWARD_MS);
    expect(pushes[1]!.changed).toMatchObject({ batches: ['b1'], everything: false });
    expect(pushes[1]!.changed.entries).toHaveLength(100);
    // At once: no wait of its own (fake time, the same millisecond or the next one).
    expect(pushes[0]!.at - start).toBeLessThanOrEqual(1);
  });

  it('says everything rather than name more ids than a push holds, and after a lost connection', async () => {
    const { bundle, pushes } = forwarding();
    bundle.add(Array.from({ length: JOURNAL_CHANGED_MAX_IDS + 1 }, (_, i) => entry(`e${i}`)));
    await vi.advanceTimersByTimeAsync(FORWARD_MS);
    expect(pushes.map((push) => push.changed)).toEqual([{ entries: [], batches: [], reconciliations: [], settings: [], approvals: [], audit: [], everything: true }]);
    bundle.add([{ kind: 'everything' }, { kind: 'setting', id: 'k', batchId: null }]);
    await vi.advanceTimersByTimeAsync(FORWARD_MS);
    expect(pushes[1]!.changed.everything).toBe(true);
    bundle.add([{ kind: 'reconciliation', id: 'r1', batchId: null }, { kind: 'approval', id: '7', batchId: null }]);
    await vi.advanceTimersByTimeAsync(FORWARD_MS);
    expect(pushes[2]!.changed).toEqual({ entries: [], batches: [], reconciliations: ['r1'], settings: [], approvals: ['7'], audit: [], everything: false });
  });

  it('sends nothing once stopped', async () => {
    const { bundle, pushes, stop } = forwarding();
    bundle.add([entry('e1')]);
    stop();
    await vi.advanceTimersByTimeAsync(FORWARD_MS * 2);
    bundle.add([entry('e2')]);
    await vi.advanceTimersByTimeAsync(FORWARD_MS * 2);
    expect(pushes).toEqual([]);
  });
});
