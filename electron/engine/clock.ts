/**
 * The engine's clock: wall time plus an offset that `advance` moves forward.
 *
 * Everything time-based in the engine reads this clock (the timestamp window, settle times,
 * expiry, and the issue-4 retry schedules), so tests move time instead of sleeping.
 */
export interface EngineClock {
  /** Microseconds since the epoch, engine time. */
  nowMicros(): number;
  /** Whole seconds since the epoch, engine time. */
  nowSeconds(): number;
  /** Moves engine time forward; due work runs before this returns. */
  advance(seconds: number): void;
  /** How far engine time is ahead of wall time, in seconds. */
  offsetSeconds(): number;
  /** Called synchronously after every `advance`; returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
}

export interface ClockOptions {
  wallMicros?: () => number;
  /** Where engine time starts relative to wall time (the stored offset of an earlier run). */
  offsetMicros?: number;
  /** Called with the new offset on every `advance`, before its listeners run (the engine stores it). */
  saveOffset?: (offsetMicros: number) => void;
}

export function createClock(options: ClockOptions = {}): EngineClock {
  const wallMicros = options.wallMicros ?? defaultWallMicros;
  let offsetMicros = options.offsetMicros ?? 0;
  let last = 0;
  const listeners = new Set<() => void>();
  return {
    nowMicros() {
      // Never goes backwards (wall clocks can), so timelines stay ordered.
      const now = Math.max(wallMicros() + offsetMicros, last);
      last = now;
      return now;
    },
    nowSeconds() {
      return Math.floor(this.nowMicros() / 1_000_000);
    },
    advance(seconds: number) {
      if (!Number.isFinite(seconds) || seconds < 0) {
        throw new RangeError(`clock.advance: expected a non-negative number of seconds, got ${String(seconds)}`);
      }
      offsetMicros += Math.round(seconds * 1_000_000);
      options.saveOffset?.(offsetMicros);
      for (const listener of [...listeners]) listener();
    },
    offsetSeconds() {
      return offsetMicros / 1_000_000;
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function defaultWallMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
