/**
 * One source for every batch counter (issue 15): the progress push, the reopened batch and the
 * report all read batchFigures, and its figures add up for any mix of row states.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchFigures, type BatchCounts } from '../../shared/api';

const countsArb = fc
  .record({ elsewhere: fc.nat(20), moved: fc.nat(20), notSent: fc.nat(50), pending: fc.nat(50), rejected: fc.nat(50), unknown: fc.nat(50), completed: fc.nat(50), failed: fc.nat(50), cancelled: fc.nat(50), processing: fc.nat(50), invalid: fc.nat(5) })
  .map((c): BatchCounts => {
    const accepted = c.completed + c.failed + c.cancelled + c.processing;
    const valid = c.notSent + c.pending + c.rejected + c.unknown + accepted + c.elsewhere + c.moved;
    return { rows: valid + c.invalid, valid, invalid: c.invalid, duplicates: 0, notSent: c.notSent, pending: c.pending, accepted, rejected: c.rejected, unknown: c.unknown, completed: c.completed, failed: c.failed, cancelled: c.cancelled, processing: c.processing, elsewhere: c.elsewhere, moved: c.moved };
  });

describe('batch figures', () => {
  it('add up: sent = accepted + failed + unknown + in flight, and valid = sent + remaining + rows paid elsewhere + rows moved to another batch', () => {
    fc.assert(
      fc.property(countsArb, (counts) => {
        const f = batchFigures(counts);
        expect(f.sent).toBe(f.accepted + f.failed + f.unknown + f.inFlight);
        expect(counts.valid).toBe(f.sent + f.remaining + f.elsewhere + f.moved);
        expect(f.accepted).toBe(f.completed + f.processing);
      }),
    );
  });

  it('does not count a row both accepted and failed (a retry batch of 10 that all failed)', () => {
    const counts: BatchCounts = { rows: 10, valid: 10, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 10, rejected: 0, unknown: 0, completed: 0, failed: 10, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 };
    expect(batchFigures(counts)).toMatchObject({ sent: 10, accepted: 0, failed: 10, settled: true });
  });

  it('is settled only when no row is left to send, in flight, unknown or processing', () => {
    const base: BatchCounts = { rows: 5, valid: 5, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 5, rejected: 0, unknown: 0, completed: 5, failed: 0, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 };
    expect(batchFigures(base).settled).toBe(true);
    expect(batchFigures({ ...base, accepted: 4, completed: 4, unknown: 1 }).settled).toBe(false);
    expect(batchFigures({ ...base, accepted: 4, completed: 4, notSent: 1 }).settled).toBe(false);
    expect(batchFigures({ ...base, completed: 4, processing: 1 }).settled).toBe(false);
  });
});
