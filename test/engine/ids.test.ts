import { describe, expect, it } from 'vitest';
import { newTransactionId, newUuidV7 } from '../../packages/sandbox/src/storage/ids';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = Date.UTC(2026, 10, 22, 10, 0, 0) * 1000 + 123_456;

describe('engine ids', () => {
  it('transaction ids are TE_ and 24 base-62 characters, unique, and sort as their creation times', () => {
    const ids = Array.from({ length: 20_000 }, (_, index) => newTransactionId(NOW + index * 997));
    for (const id of ids) expect(id).toMatch(/^TE_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Byte order (SQLite's BINARY collation), not locale order.
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(sorted).toEqual(ids);
  });

  it('ids made in the same microsecond differ in their random part', () => {
    const ids = Array.from({ length: 10_000 }, () => newTransactionId(NOW));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(1);
    // Every base-62 character turns up in the random part (no character is left out by the mapping).
    expect(new Set(ids.flatMap((id) => [...id.slice(12)])).size).toBe(62);
  });

  it('refs are version 7 UUIDs carrying the creation millisecond, in time order', () => {
    const refs = Array.from({ length: 20_000 }, (_, index) => newUuidV7(NOW + index * 250));
    refs.forEach((ref, index) => {
      expect(ref).toMatch(UUID_V7);
      expect(parseInt(ref.replace(/-/g, '').slice(0, 12), 16)).toBe(Math.floor((NOW + index * 250) / 1000));
    });
    expect(new Set(refs).size).toBe(refs.length);
    // Time order down to the sub-millisecond fraction: the first 18 characters never go backwards.
    for (let index = 1; index < refs.length; index += 1) expect((refs[index] as string).slice(0, 18) >= (refs[index - 1] as string).slice(0, 18)).toBe(true);
  });
});
