/**
 * An approved request whose money has left (`sent`, read by the database's own rule) offers no
 * Withdraw: the database would refuse it (APPROVAL_ALREADY_SENT). Its card says so and where to
 * follow the money instead; an approved request not sent yet (a batch halfway) keeps its button.
 */
import { cleanup, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../shared/api';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

function request(id: number, overrides: Partial<ApprovalRequest>): ApprovalRequest {
  return {
    id, subject: 'payout', batchId: null, environment: 'sandbox', currency: 'XAF', externalId: `ext-${id}`, phoneNumber: '+237650000001', amount: 250_000, rows: 1,
    digest: 'd'.repeat(64), approvalsRequired: 1, approvalsGiven: 1, approverRole: 'finance', state: 'approved', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z',
    decidedBy: 'kofi', decidedAt: '2026-11-25T10:05:00Z', remark: null, votes: [{ voter: 'kofi', vote: 'approve', remark: null, at: '2026-11-25T10:05:00Z' }], sent: false, profileId: null, profileName: null, accountUrl: null, request: null, spentByEntry: null, ...overrides,
  };
}

afterEach(cleanup);

describe('an approved request whose money has left', () => {
  it('has no Withdraw and says where to follow it; one not sent yet keeps its Withdraw', async () => {
    const mine = [
      request(7, { sent: true }),
      request(8, { subject: 'batch', batchId: 'b-half', externalId: null, phoneNumber: null, rows: 20, sent: false }),
      request(9, { subject: 'batch', batchId: 'b-done', externalId: null, phoneNumber: null, rows: 3, sent: true }),
    ];
    const api = createFakeApi({
      'approvals:status': () => ok({ available: true as const, login: 'fatou', roles: ['finance'] }),
      'approvals:list': (input) => ok({ requests: input.scope === 'mine' ? mine : [] }),
    });
    await renderApp(api, { screen: 'approvals' });
    await vi.waitFor(() => expect(document.querySelectorAll('.approval-card')).toHaveLength(3));
    const card = (id: number) => document.getElementById(`approval-${id}-title`)!.closest('li')!;
    const sentPayout = card(7);
    expect(within(sentPayout).queryByRole('button', { name: /^Withdraw/ })).toBeNull();
    expect(within(sentPayout).getByText('This payout has been sent: the request can no longer be withdrawn. Follow the payout from its timeline.')).toBeTruthy();
    const halfway = card(8);
    expect(within(halfway).getByRole('button', { name: /^Withdraw request 8/ })).toBeTruthy();
    expect(within(halfway).queryByText(/can no longer be withdrawn/)).toBeNull();
    const ended = card(9);
    expect(within(ended).queryByRole('button', { name: /^Withdraw/ })).toBeNull();
    expect(within(ended).getByText(/^This batch has been sent, or has ended/)).toBeTruthy();
  });
});
