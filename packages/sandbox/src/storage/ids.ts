/**
 * Identifiers the engine assigns: time-ordered, so that every index keyed by them grows at its right
 * edge. Random ids scattered each create's index entries over the whole file, and a group commit wrote
 * a separate page for every one of them (bench:engine); ordered ids put a whole group's entries on the
 * same few pages. They stay unguessable: the random part alone is 89 bits (transaction id) or 74 bits
 * (UUID).
 *
 * - Transaction id: `TE_` + 9 base-62 characters of the creation time in microseconds (fixed width,
 *   so text order is time order until the year 2398) + 15 random base-62 characters.
 * - `ref`, customer `ref`, provider reference: UUID version 7 (RFC 9562: 48-bit Unix milliseconds, 12
 *   bits of sub-millisecond fraction, 62 random bits), still "string (UUID)" as the spec says.
 */
import { randomFillSync } from 'node:crypto';

/** Base 62 in ASCII order, so that comparing ids as text compares their times. */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_DIGITS = 9;
const RANDOM_DIGITS = 15;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Random bytes drawn from one CSPRNG fill at a time (a call per id was costly). */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** `count` characters of base 62, each equally likely (CSPRNG): API keys use this too. */
export function randomBase62(count: number): string {
  let text = '';
  while (text.length < count) {
    const byte = randomByte();
    // 248 = 4 × 62: rejecting the top 8 values keeps every character equally likely.
    if (byte < 248) text += BASE62[byte % 62];
  }
  return text;
}

/** `TE_` + time + randomness; `nowMicros` is the engine clock. */
export function newTransactionId(nowMicros: number): string {
  let time = '';
  let rest = Math.max(0, Math.floor(nowMicros));
  for (let index = 0; index < TIME_DIGITS; index += 1) {
    time = BASE62[rest % 62] + time;
    rest = Math.floor(rest / 62);
  }
  return `TE_${time}${randomBase62(RANDOM_DIGITS)}`;
}

/** A version 7 UUID for `nowMicros` (engine clock). */
export function newUuidV7(nowMicros: number): string {
  const micros = Math.max(0, Math.floor(nowMicros));
  const millis = Math.floor(micros / 1000);
  // Sub-millisecond fraction in 12 bits (RFC 9562 §6.2, method 3): ordered within a millisecond too.
  const fraction = Math.floor(((micros % 1000) * 4096) / 1000);
  // 48 bits of milliseconds as 12 hex digits (exact: far below 2^53).
  const time = millis.toString(16).padStart(12, '0').slice(-12);
  // 8 random bytes as hex in one call (three ids per create: a byte at a time showed in the profile).
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const variant = HEX[0x80 | ((pool[poolOffset] as number) & 0x3f)];
  const rest = pool.toString('hex', poolOffset + 1, poolOffset + 8);
  poolOffset += 8;
  return `${time.slice(0, 8)}-${time.slice(8)}-${(0x7000 | fraction).toString(16)}-${variant}${rest.slice(0, 2)}-${rest.slice(2)}`;
}
