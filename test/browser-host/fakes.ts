/** A fake handler table and push source for transport tests (the real runtime has its own test). */
import { vi, type Mock } from 'vitest';
import { CHANNELS, type Channel, type PushEvent, type PushEvents, type Result } from '../../shared/api';
import type { PushSource } from '../../electron/console/transport';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each fake answers any channel's Result
type FakeHandler = Mock<(input: unknown) => Promise<Result<any>>>;
export type FakeHandlers = { [C in Channel]: FakeHandler };

/** Every channel answers `{ ok: true, value: { channel, input } }` unless a test says otherwise. */
export function fakeHandlers(): FakeHandlers {
  const table: Partial<Record<Channel, FakeHandler>> = {};
  for (const channel of CHANNELS) {
    table[channel] = vi.fn(async (input: unknown) => ({ ok: true as const, value: { channel, input } }));
  }
  return table as FakeHandlers;
}

export class FakePushSource implements PushSource {
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();

  on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set);
    const wrapped = listener as (payload: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  emit<E extends PushEvent>(event: E, payload: PushEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(payload);
  }

  listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }
}
