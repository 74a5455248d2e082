/**
 * A decision whose outcome was not known (APPROVAL_UNCONFIRMED: the workspace lost on its way)
 * is said first even while the lists cannot be read, with a Refresh; once they can, the notice is
 * answered from the request read again: this login's vote on it (recorded, shown as done) or not
 * (not recorded, with its state now).
 */
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiFailure, ApprovalRequest } from '../../shared/api';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

const waiting: ApprovalRequest = {
  id: 4, subject: 'payout', batchId: null, environment: 'sandbox', currency: 'XAF', externalId: 'ext-4', phoneNumber: '+237650000001', amount: 150_000, rows: 1,
  digest: 'd'.repeat(64), approvalsRequired: 1, approvalsGiven: 0, approverRole: 'finance', state: 'awaiting', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z',
  decidedBy: null, decidedAt: null, remark: null, votes: [], sent: false, profileId: null, profileName: null, accountUrl: null, request: null, spentByEntry: null,
};
const lost: ApiFailure = { code: 'WORKSPACE_CONNECTION_LOST', message: 'The connection to the team workspace was lost.' };
const unconfirmed: ApiFailure = { code: 'APPROVAL_UNCONFIRMED', message: 'not known yet' };

/** kofi's console: request 4 waits for him; the workspace goes away as he approves, and is back when `away.now` is false. */
function kofisConsole(after: ApprovalRequest) {
  const away = { now: false, pressed: false };
  const api = createFakeApi({
    'approvals:status': () => (away.now ? { ok: false, error: lost } : ok({ available: true as const, login: 'kofi', roles: ['finance'] })),
    'approvals:list': (input) => (away.now ? { ok: false, error: lost } : ok({ requests: input.scope === 'forMe' && !away.pressed ? [waiting] : [] })),
    'approvals:get': () => (away.now ? { ok: false, error: lost } : ok(after)),
    'approvals:approve': () => {
      away.now = true;
      away.pressed = true;
      return { ok: false, error: unconfirmed };
    },
  });
  return { api, away };
}

afterEach(cleanup);

describe('an approve whose outcome was not known', () => {
  it.each([
    ['recorded', { ...waiting, state: 'approved' as const, approvalsGiven: 1, decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve' as const, remark: null, at: '2026-11-25T10:05:00Z' }] }, 'Request 4 is approved: it may be sent now.'],
    ['not recorded', waiting, /nothing was recorded/],
    // Two approvals needed, a colleague's given: that vote is not this login's.
    [
      "not recorded, a colleague's vote on it",
      { ...waiting, approvalsRequired: 2, approvalsGiven: 1, votes: [{ voter: 'tester', vote: 'approve' as const, remark: null, at: '2026-11-25T10:04:00Z' }] },
      /nothing was recorded/,
    ],
  ])('is said while the workspace is away, and answered once it is back (%s)', async (_name, after, answer) => {
    const { api, away } = kofisConsole(after);
    const { user } = await renderApp(api, { screen: 'approvals' });
    await user.click(await screen.findByRole('button', { name: /^Approve request 4/ }));
    expect(await screen.findByText(/whether it was recorded is not known yet/)).toBeTruthy();
    expect(screen.getByText(/The connection to the team workspace was lost\./)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Approve request 4/ })).toBeNull();
    away.now = false;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText(answer)).toBeTruthy();
    expect(screen.queryByText(/whether it was recorded is not known yet/)).toBeNull();
  });
});
