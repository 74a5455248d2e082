/**
 * The engine's clock: wall time plus an offset that `advance` moves forward and `reset` removes.
 *
 * The sandbox's own lifecycle reads engine time (settle times, expiry, webhook retry schedules,
 * the timestamps it writes), so tests and developers move time instead of sleeping. The signed
 * request's ±300 s window is checked against `wallSeconds` instead: clients sign with their own
 * real clock, as they do against the real service, so advancing the sandbox never refuses them.
 */
import { TypedEmitter } from '../../../../shared/events';

export interface EngineClock {
  /** Microseconds since the epoch, engine time. */
  nowMicros(): number;
  /** Whole seconds since the epoch, engine time. */
  nowSeconds(): number;
  /** Moves engine time forward; due work runs before this returns. */
  advance(seconds: number): void;
  /** Whole seconds since the epoch, real (wall) time: what request timestamps are checked against. */
  wallSeconds(): number;
  /** Engine time back to wall time (offset 0); returns the offset removed, in microseconds. */
  reset(): number;
  /** How far engine time is ahead of wall time, in seconds. */
  offsetSeconds(): number;
  /** Called synchronously after every `advance` and `reset`; returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
}

export interface ClockOptions {
  wallMicros?: () => number;
  /** Where engine time starts relative to wall time (the stored offset of an earlier run). */
  offsetMicros?: number;
  /** Called with the new offset on every `advance` and `reset`, before listeners run (the engine stores it). */
  saveOffset?: (offsetMicros: number) => void;
}

export function createClock(options: ClockOptions = {}): EngineClock {
  const wallMicros = options.wallMicros ?? defaultWallMicros;
  let offsetMicros = options.offsetMicros ?? 0;
  let last = 0;
  const advanced = new TypedEmitter<{ advance: void }>();
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
      advanced.emit('advance', undefined);
    },
    wallSeconds() {
      return Math.floor(wallMicros() / 1_000_000);
    },
    reset() {
      const removed = offsetMicros;
      offsetMicros = 0;
      // Engine time goes back on purpose here: the "never backwards" floor starts again from wall time.
      last = 0;
      options.saveOffset?.(offsetMicros);
      advanced.emit('advance', undefined);
      return removed;
    },
    offsetSeconds() {
      return offsetMicros / 1_000_000;
    },
    onAdvance(listener) {
      return advanced.on('advance', listener);
    },
  };
}

function defaultWallMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
