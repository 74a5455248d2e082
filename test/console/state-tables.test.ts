/**
 * The console's state tables (issue 15): every state write goes through one table, and a move
 * the table does not list throws and changes nothing, on a real journal file.
 */
import { describe, expect, it } from 'vitest';
import { createBatch, getSummary, setState } from '../../electron/console/batch/store';
import { getEntry, openJournal, recordInitiateOutcome, recordNotFound, recordRequest, recordResend } from '../../electron/console/journal/entries';
import { ForbiddenTransition } from '../../electron/console/states/machine';
import { BATCH_STATE_TABLE, ENTRY_STATES, RECONCILE_STATE_TABLE } from '../../electron/console/states/tables';
import { paymentRequest, tempDir } from './helpers';

const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

function journal() {
  const db = openJournal(`${tempDir()}/journal.db`);
  const entry = (externalId: string) => recordRequest(db, { profile: PROFILE, kind: 'payout', request: paymentRequest({ external_id: externalId }), currency: 'XAF', at: 1_000 });
  return { db, entry };
}

describe('journal entry moves', () => {
  it('sends a refused entry again as the same record (a 4xx refusal created nothing), and never a known one', () => {
    const { db, entry } = journal();
    const refused = entry('R-1');
    recordInitiateOutcome(db, refused.id, { kind: 'refused', error: { code: 'VALIDATION_ERROR', message: 'bad', httpStatus: 422 } }, 2_000);
    expect(getEntry(db, refused.id)).toMatchObject({ state: 'rejected', lastError: { code: 'VALIDATION_ERROR' } });
    expect(recordResend(db, refused.id, 3_000)).toMatchObject({ id: refused.id, state: 'pending' });
    const paid = entry('K-1');
    recordInitiateOutcome(db, paid.id, { kind: 'accepted', httpStatus: 200, message: null, tx: { transaction_id: 'tx-k', external_id: 'K-1', status: 'processing', failed_code: null, amount: 1, currency: 'XAF' } as never }, 2_000);
    expect(() => recordResend(db, paid.id, 3_000)).toThrow(ForbiddenTransition);
  });

  it('never sends an entry whose outcome is unknown until a lookup found nothing', () => {
    const { db, entry } = journal();
    const unknown = entry('U-1');
    recordInitiateOutcome(db, unknown.id, { kind: 'may-exist', cause: 'server-error', message: '500', error: { code: 'INTERNAL', message: 'x', httpStatus: 500 }, retryAfterSeconds: null }, 2_000);
    expect(() => recordResend(db, unknown.id, 3_000)).toThrow(/outcome_unknown -> pending is not allowed/);
    recordNotFound(db, unknown.id, 4_000, 'not found');
    expect(recordResend(db, unknown.id, 5_000).state).toBe('pending');
  });

  it('records a 429 as not sent, which may be sent again', () => {
    const { db, entry } = journal();
    const throttled = entry('T-1');
    const after = recordInitiateOutcome(db, throttled.id, { kind: 'retry-later', error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', httpStatus: 429 }, retryAfterSeconds: 30 }, 2_000);
    expect(after).toMatchObject({ state: 'rejected', lastError: { code: 'NOT_SENT' } });
    expect(recordResend(db, throttled.id, 3_000).state).toBe('pending');
  });

  it('lists where each phase may go: a refusal only to the same payout sent again', () => {
    expect(ENTRY_STATES.moves.rejected).toEqual(['pending']);
    expect(ENTRY_STATES.can('rejected', 'known')).toBe(false);
    expect(ENTRY_STATES.can('known', 'pending')).toBe(false);
    expect(ENTRY_STATES.can('outcome_unknown', 'pending')).toBe(false);
    expect(ENTRY_STATES.can('pending', 'known')).toBe(true);
    expect(ENTRY_STATES.can(null, 'outcome_unknown')).toBe(false);
  });
});

describe('batch and reconciliation moves', () => {
  it('keeps a cancelled batch cancelled: pause, resume and done are refused and nothing is written', () => {
    const { db } = journal();
    createBatch(db, { id: 'B-1', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: [], at: 1_000 });
    setState(db, 'B-1', 'sending', 2_000, { started: true });
    setState(db, 'B-1', 'cancelled', 3_000, { reason: 'Cancelled', finished: true });
    for (const next of ['paused', 'sending', 'done', 'interrupted', 'draft'] as const) {
      expect(() => setState(db, 'B-1', next, 4_000)).toThrow(ForbiddenTransition);
    }
    expect(getSummary(db, 'B-1')).toMatchObject({ state: 'cancelled', stateReason: 'Cancelled' });
  });

  it('lets nothing leave done, and a draft only be confirmed or cancelled', () => {
    expect(BATCH_STATE_TABLE.moves.done).toEqual([]);
    expect(BATCH_STATE_TABLE.can('draft', 'paused')).toBe(false);
    expect(BATCH_STATE_TABLE.can('paused', 'sending')).toBe(true);
    expect(RECONCILE_STATE_TABLE.can('importing', 'done')).toBe(false);
    expect(RECONCILE_STATE_TABLE.can('interrupted', 'running')).toBe(true);
  });
});
