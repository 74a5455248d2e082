/**
 * The spec's timestamp format: ISO 8601 UTC with microseconds and `Z`
 * (`2026-11-21T10:00:00.123456Z`). Times are carried as integer microseconds since the epoch,
 * since a JS Date holds only milliseconds.
 */
const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})Z$/;

export type EpochMicros = number;

/** `YYYY-MM-DDTHH:MM:SS.` per whole second: Date#toISOString is the costly part, and the engine
 * formats up to five times per response, mostly within a few recent seconds. */
const secondPrefixes = new Map<number, string>();
const MAX_REMEMBERED_SECONDS = 4096;

export function formatTimestamp(epochMicros: EpochMicros): string {
  if (!Number.isSafeInteger(epochMicros) || epochMicros < 0) {
    throw new RangeError(`formatTimestamp: expected non-negative integer microseconds, got ${String(epochMicros)}`);
  }
  const second = Math.floor(epochMicros / 1_000_000);
  let prefix = secondPrefixes.get(second);
  if (prefix === undefined) {
    if (secondPrefixes.size >= MAX_REMEMBERED_SECONDS) secondPrefixes.clear();
    prefix = `${new Date(second * 1000).toISOString().slice(0, 19)}.`; // 2026-11-21T10:00:00.
    secondPrefixes.set(second, prefix);
  }
  const micros = epochMicros - second * 1_000_000;
  return `${prefix}${String(micros).padStart(6, '0')}Z`;
}

/** Parses the spec's format; returns null for anything else (including impossible dates). */
export function parseTimestamp(text: string): EpochMicros | null {
  const match = TIMESTAMP_PATTERN.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, frac] = match;
  const millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(millis);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(s)
  ) {
    return null;
  }
  return millis * 1000 + Number(frac);
}

export function isTimestamp(text: string): boolean {
  return parseTimestamp(text) !== null;
}

/** Microseconds to a JS Date (microseconds beyond the millisecond are dropped). */
export function timestampToDate(text: string): Date | null {
  const micros = parseTimestamp(text);
  return micros === null ? null : new Date(Math.floor(micros / 1000));
}
