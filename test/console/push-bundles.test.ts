/**
 * Push events gathered and handed to a transport together (electron/console/push-bundles.ts):
 * every event heard goes out once, in the order heard, the events of one window in one bundle.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bundlePushes, PUSH_BUNDLE_MS, type BundledPush } from '../../electron/console/push-bundles';
import { PUSH_EVENTS } from '../../shared/api';
import { FakePushSource } from '../browser-host/fakes';

const changed = (journalId: string) => ({ journalId, status: 'SUCCESSFUL', state: 'known' });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('push bundles', () => {
  it('hands the events of one window over together, in the order they came, whatever their event', () => {
    const source = new FakePushSource();
    const bundles: BundledPush[][] = [];
    bundlePushes(source, (bundle) => bundles.push(bundle));
    expect(source.listenerCount()).toBe(PUSH_EVENTS.length);

    source.emit('transaction:changed', changed('j1'));
    source.emit('sandbox:event', { kind: 'wallet', detail: 'local 100' });
    vi.advanceTimersByTime(PUSH_BUNDLE_MS - 1);
    source.emit('transaction:changed', changed('j2'));
    expect(bundles).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(bundles).toEqual([
      [
        ['transaction:changed', changed('j1')],
        ['sandbox:event', { kind: 'wallet', detail: 'local 100' }],
        ['transaction:changed', changed('j2')],
      ],
    ]);

    // The next event starts the next bundle; a quiet window delivers nothing.
    vi.advanceTimersByTime(PUSH_BUNDLE_MS * 3);
    expect(bundles).toHaveLength(1);
    source.emit('profiles:changed', { activeId: 'p2' });
    vi.advanceTimersByTime(PUSH_BUNDLE_MS);
    expect(bundles).toEqual([bundles[0], [['profiles:changed', { activeId: 'p2' }]]]);
  });

  it('with a window of 0 hands each event over alone, at once', () => {
    const source = new FakePushSource();
    const bundles: BundledPush[][] = [];
    bundlePushes(source, (bundle) => bundles.push(bundle), 0);
    source.emit('transaction:changed', changed('j1'));
    source.emit('transaction:changed', changed('j2'));
    expect(bundles).toEqual([[['transaction:changed', changed('j1')]], [['transaction:changed', changed('j2')]]]);
  });

  it('delivers what is gathered when stopped, then stops listening', () => {
    const source = new FakePushSource();
    const bundles: BundledPush[][] = [];
    const stop = bundlePushes(source, (bundle) => bundles.push(bundle));
    source.emit('transaction:changed', changed('j1'));
    stop();
    expect(bundles).toEqual([[['transaction:changed', changed('j1')]]]);
    expect(source.listenerCount()).toBe(0);
    stop();
    source.emit('transaction:changed', changed('j2'));
    vi.advanceTimersByTime(PUSH_BUNDLE_MS * 2);
    expect(bundles).toHaveLength(1);
  });
});
