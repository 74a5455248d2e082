/**
 * A confirmed batch that a team workspace's policy holds back: Send answers APPROVAL_REQUIRED, the
 * dialog says what is needed and offers "Ask for approval", which asks for this batch as one file;
 * a request already waiting is named instead of a second ask.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalNeed } from '../../shared/api';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

const CSV = ['phone_number,amount,first_name,last_name,email,description', '+237650000001,100000,Awa,Nkemdirim,awa@example.com,Commission', '+237650000002,200000,Jean,Mbarga,jean@example.com,Advance'].join('\n');

async function sendHeldBatch(need: ApprovalNeed) {
  const backend = createBatchBackend({});
  const api = createFakeApi(backend.handlers, [profile()]);
  api.handlers['batches:start'] = async () => ({ ok: false, error: { code: 'APPROVAL_REQUIRED', message: 'needs approval', approval: need } });
  api.handlers['approvals:askBatch'] = async () => ({
    ok: true,
    value: { request: { id: 7, subject: 'batch', batchId: 'b1', environment: 'sandbox', currency: 'XAF', externalId: null, phoneNumber: null, amount: 300_000, rows: 2, digest: 'd'.repeat(64), approvalsRequired: 1, approvalsGiven: 0, approverRole: 'finance', state: 'awaiting', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z', decidedBy: null, decidedAt: null, remark: null, votes: [], sent: false, profileId: null, profileName: null, accountUrl: null, request: null, spentByEntry: null } },
  });
  const view = await renderApp(api, { screen: 'batches' });
  await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'suppliers.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'suppliers.csv' });
  await view.user.click(await screen.findByRole('button', { name: 'Review and send' }));
  const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
  await view.user.click(await within(dialog).findByRole('button', { name: /^Send 2 payouts/ }));
  return { api, user: view.user, dialog };
}

describe('a confirmed batch the policy holds back', () => {
  const need: ApprovalNeed = { subject: 'batch', batchId: 'b1', environment: 'sandbox', currency: 'XAF', amount: 300_000, rows: 2, approvals: 1, approverRole: 'finance' };

  it('says what it needs and asks for approval of the batch as one file', async () => {
    const { api, user, dialog } = await sendHeldBatch(need);
    const ask = await within(dialog).findByRole('region', { name: 'Ask for approval' });
    expect(within(ask).getByText('This batch (2 rows, total 300,000 XAF) needs one approval by finance before it is sent.')).toBeTruthy();
    expect(within(dialog).getByText('The team’s policy needs an approval before this is sent.')).toBeTruthy();
    await user.click(within(ask).getByRole('button', { name: 'Ask for approval of this batch' }));
    expect(await within(ask).findByText('Approval asked (request 7). Send the batch once it is approved.')).toBeTruthy();
    expect(api.callsOf('approvals:askBatch')).toEqual([{ batchId: 'b1' }]);
  });

  it('names the request already waiting instead of asking twice', async () => {
    const { api, dialog } = await sendHeldBatch({ ...need, request: { id: 4, state: 'awaiting' } });
    const ask = await within(dialog).findByRole('region', { name: 'Ask for approval' });
    expect(within(ask).getByText('Request 4 is waiting for approval.')).toBeTruthy();
    expect(within(ask).queryByRole('button')).toBeNull();
    expect(api.callsOf('approvals:askBatch')).toEqual([]);
  });
});
