/**
 * History shows that a payout needed approval and was sent under it (issue 37 item 1): the row
 * whose entry spent an approved request reads "Approved (request N), sent"; a batch row, its
 * batch's request; a payout that needed none has no mark. The matching only: History's rows are
 * a virtual list jsdom does not lay out.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/api';
import { approvalOf } from '../../renderer/src/screens/HistoryScreen';
import { unsentFilterOf, unsentState } from '../../renderer/src/screens/HistoryUnsent';


function approved(id: number, overrides: Partial<ApprovalRequest>): ApprovalRequest {
  return {
    id, subject: 'payout', batchId: null, environment: 'sandbox', currency: 'XAF', externalId: null, phoneNumber: null, amount: 400_000, rows: 1, digest: 'd'.repeat(64),
    approvalsRequired: 1, approvalsGiven: 1, approverRole: 'finance', state: 'approved', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z', decidedBy: 'kofi',
    decidedAt: '2026-11-25T10:05:00Z', remark: null, votes: [], sent: true, profileId: null, profileName: null, accountUrl: null, request: null, spentByEntry: null, ...overrides,
  };
}

describe('History’s approval mark', () => {
  const known = [approved(7, { spentByEntry: 'j-approved' }), approved(9, { subject: 'batch', batchId: 'b-9' }), approved(3, { state: 'rejected', spentByEntry: 'j-rejected' })];
  it('names the request a payout was sent under: a payout’s spent by its entry, a batch row’s its batch’s, nothing else', () => {
    expect(approvalOf({ id: 'j-approved', kind: 'payout' }, known)?.id).toBe(7);
    expect(approvalOf({ id: 'j-row', kind: 'payout', batch: { batchId: 'b-9', rowNumber: 2 } }, known)?.id).toBe(9);
    expect(approvalOf({ id: 'j-plain', kind: 'payout' }, known)).toBeNull();
    expect(approvalOf({ id: 'j-rejected', kind: 'payout' }, known)).toBeNull();
    expect(approvalOf({ id: 'j-approved', kind: 'payment' }, known)).toBeNull();
  });
});

describe('History’s group waiting for approval', () => {
  it('takes the search, dates and amounts; a status or Kind = Payment hides it (a request has neither)', () => {
    expect(unsentFilterOf({ text: 'INV-42', from: '2026-11-01T00:00:00Z', minAmount: 1000, kind: 'payout' })).toEqual({ text: 'INV-42', from: '2026-11-01T00:00:00Z', minAmount: 1000 });
    expect(unsentFilterOf({})).toEqual({});
    expect(unsentFilterOf({ status: 'processing' })).toBeNull();
    expect(unsentFilterOf({ state: 'pending' })).toBeNull();
    expect(unsentFilterOf({ kind: 'payment' })).toBeNull();
  });
  it('says an approved request not sent is ready to send, and a closed one as it ended', () => {
    expect(unsentState(approved(1, { sent: false }))).toBe('ready');
    expect(unsentState(approved(2, { state: 'awaiting', sent: false }))).toBe('awaiting');
    expect(unsentState(approved(3, { state: 'rejected', sent: false }))).toBe('rejected');
  });
});
