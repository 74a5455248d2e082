/**
 * `formatTimestamp` (shared/contract) for the engine's hot paths: the same text, with the
 * `YYYY-MM-DDTHH:MM:SS` part remembered per second, since a response formats up to five times
 * and most of them fall in a few recent seconds (Date#toISOString is the costly part).
 */
import { formatTimestamp } from '../../shared/contract';

const MAX_REMEMBERED_SECONDS = 4096;
const secondPrefixes = new Map<number, string>();

export function formatMicros(epochMicros: number): string {
  // Anything formatTimestamp would refuse goes to it, so the error stays the same.
  if (!Number.isSafeInteger(epochMicros) || epochMicros < 0) return formatTimestamp(epochMicros);
  const second = Math.floor(epochMicros / 1_000_000);
  let prefix = secondPrefixes.get(second);
  if (prefix === undefined) {
    if (secondPrefixes.size >= MAX_REMEMBERED_SECONDS) secondPrefixes.clear();
    // `2026-11-21T10:00:00.` from `2026-11-21T10:00:00.000000Z`.
    prefix = formatTimestamp(second * 1_000_000).slice(0, 20);
    secondPrefixes.set(second, prefix);
  }
  const micros = epochMicros - second * 1_000_000;
  return `${prefix}${micros < 100_000 ? String(micros).padStart(6, '0') : String(micros)}Z`;
}
