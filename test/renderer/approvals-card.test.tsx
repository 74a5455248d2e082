/**
 * An approval request's card as the maker and the checker meet it (issue 37 item 1): where the
 * payout stands; what a checker needs (recipient, description, profile and account); a single
 * payout without "Rows"; an approved payout sent from its card with one action, nothing retyped;
 * Withdraw asks first; what the checker decided stays in sight.
 */
import { cleanup, fireEvent, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, ApprovalScope } from '../../shared/api';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';
import { createStores } from '../../renderer/src/stores';

const BOUND = { payment_method: 'service_demo', amount: 400_000, phone_number: '+237650000001', external_id: 'INV-42', customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' }, description: 'Supplier invoice 42' };

function request(id: number, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id, subject: 'payout', batchId: null, environment: 'sandbox', currency: 'XAF', externalId: 'INV-42', phoneNumber: '+237650000001', amount: 400_000, rows: 1,
    digest: 'd'.repeat(64), approvalsRequired: 1, approvalsGiven: 1, approverRole: 'finance', state: 'approved', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z',
    decidedBy: 'kofi', decidedAt: '2026-11-25T10:05:00Z', remark: null, votes: [{ voter: 'kofi', vote: 'approve', remark: null, at: '2026-11-25T10:05:00Z' }], sent: false,
    profileId: 'acme-main', profileName: 'Acme main', accountUrl: 'https://api.example.com', request: BOUND, spentByEntry: null, ...overrides,
  };
}

afterEach(cleanup);

async function render(lists: Partial<Record<ApprovalScope, ApprovalRequest[]>>) {
  const api = createFakeApi({
    'approvals:status': () => ok({ available: true as const, login: 'fatou', roles: ['finance'] }),
    'approvals:list': (input) => ok({ requests: lists[input.scope] ?? [] }),
    'approvals:send': () => ok({ id: 'entry-1' } as never),
    'approvals:sendBatch': () => ok({ id: 'b-42' } as never),
    'approvals:withdraw': (input) => ok(request(input.id, { state: 'withdrawn' })),
  });
  await renderApp(api, { screen: 'approvals' });
  await vi.waitFor(() => expect(document.querySelectorAll('.approval-card').length).toBeGreaterThan(0));
  return { api, card: (id: number) => document.getElementById(`approval-${id}-title`)!.closest('li')! };
}

describe('an approval request’s card', () => {
  it('shows where the payout stands and what a checker needs, without “Rows” for a single payout', async () => {
    const { card } = await render({ mine: [request(7)] });
    const seven = within(card(7));
    expect(seven.getByRole('list', { name: 'Where this payout stands' }).querySelector('[aria-current="step"]')!.textContent).toBe('Approved, ready to send');
    expect(seven.getByText('Awa Nkemdirim', { exact: false })).toBeTruthy();
    expect(seven.getByText('Supplier invoice 42')).toBeTruthy();
    expect(seven.getByText('Acme main', { exact: false })).toBeTruthy();
    expect(seven.getByText(/https:\/\/api\.example\.com/)).toBeTruthy();
    expect(seven.queryByText('Rows')).toBeNull();
  });

  it('sends an approved payout with one action, naming the request only (nothing retyped)', async () => {
    const { api, card } = await render({ mine: [request(7)] });
    fireEvent.click(within(card(7)).getByRole('button', { name: /^Send 400,000 XAF now/ }));
    await vi.waitFor(() => expect(api.callsOf('approvals:send')).toEqual([{ id: 7 }]));
  });

  it('asks before it withdraws', async () => {
    const { api, card } = await render({ mine: [request(8, { state: 'awaiting', approvalsGiven: 0, votes: [], decidedBy: null, decidedAt: null })] });
    fireEvent.click(within(card(8)).getByRole('button', { name: /^Withdraw request 8/ }));
    expect(api.callsOf('approvals:withdraw')).toEqual([]);
    fireEvent.click(within(card(8)).getByRole('button', { name: 'Keep it' }));
    fireEvent.click(within(card(8)).getByRole('button', { name: /^Withdraw request 8/ }));
    fireEvent.click(within(card(8)).getByRole('button', { name: 'Yes, withdraw it' }));
    await vi.waitFor(() => expect(api.callsOf('approvals:withdraw')).toEqual([{ id: 8 }]));
  });

  it('keeps what the checker decided in sight, sent ones linked to their timeline', async () => {
    await render({ decided: [request(9, { sent: true, spentByEntry: 'entry-9' })] });
    const section = document.querySelector('section[aria-labelledby="approvals-decided-title"]')!;
    expect(within(section as HTMLElement).getByText('Decided by you')).toBeTruthy();
    expect(within(section as HTMLElement).getByRole('button', { name: 'Open its timeline' })).toBeTruthy();
    expect(within(section as HTMLElement).queryByRole('button', { name: /^Send/ })).toBeNull();
  });

  it('drops a “Request N is approved” notice once the request moves on, and keeps it through its own change event', async () => {
    const waiting = request(5, { state: 'awaiting', approvalsGiven: 0, votes: [], decidedBy: null, decidedAt: null, requestedBy: 'amadou' });
    let now = request(5);
    const api = createFakeApi({
      'approvals:status': () => ok({ available: true as const, login: 'fatou', roles: ['finance'] }),
      'approvals:list': (input) => ok({ requests: input.scope === 'forMe' ? [waiting] : [] }),
      'approvals:approve': () => ok(request(5)),
      'approvals:get': () => ok(now),
    });
    const approvals = createStores(api).approvals;
    await approvals.getState().load();
    await approvals.getState().approve(waiting, '');
    expect(approvals.getState().last).toMatchObject({ ok: true, request: { id: 5, state: 'approved' } });
    // The approval's own change event, arriving after its answer (a loaded machine): the request is as the notice says.
    await approvals.getState().changed({ everything: false, ids: ['5'] });
    expect(approvals.getState().last).toMatchObject({ ok: true, request: { id: 5, state: 'approved' } });
    // Another request changed: this one is not read, the notice stays.
    await approvals.getState().changed({ everything: false, ids: ['6'] });
    expect(api.callsOf('approvals:get')).toEqual([{ id: 5 }]);
    expect(approvals.getState().last).not.toBeNull();
    // The maker sent it: "it may be sent now" is stale.
    now = request(5, { sent: true, spentByEntry: 'entry-5' });
    await approvals.getState().changed({ everything: false, ids: ['5'] });
    expect(approvals.getState().last).toBeNull();
  });

  it('sends an approved batch with one action, naming the request only, and opens the batch it started', async () => {
    const batch = request(11, { subject: 'batch', batchId: 'b-42', externalId: null, phoneNumber: null, request: null, rows: 20, amount: 210_000 });
    const { api, card } = await render({ mine: [batch] });
    const eleven = within(card(11));
    expect(eleven.getByText(/the batch is sent as it was approved, its 20 rows under its profile/)).toBeTruthy();
    fireEvent.click(eleven.getByRole('button', { name: /^Send its 20 rows now \(210,000 XAF\)/ }));
    await vi.waitFor(() => expect(api.callsOf('approvals:sendBatch')).toEqual([{ id: 11 }]));
    expect(api.callsOf('approvals:send')).toEqual([]);
    // The card read the batch once (its rows); the send opened it once more, on its page.
    await vi.waitFor(() => expect(api.callsOf('batches:get')).toEqual([{ batchId: 'b-42' }, { batchId: 'b-42' }]));
  });

  it('shows the approver a batch’s rows with their flags, how many in all, and a file sent before (read-only)', async () => {
    const batch = request(12, { subject: 'batch', batchId: 'b-43', externalId: null, phoneNumber: null, request: null, rows: 25, amount: 300_000, state: 'awaiting', approvalsGiven: 0, votes: [], decidedBy: null, decidedAt: null });
    const values = (n: number) => ({ phone_number: `+23765000000${n}`, amount: '12000', first_name: 'Awa', last_name: `Row${n}`, email: '', description: '', external_id: `X-${n}`, payment_method: '', meta: {} });
    const row = (n: number, extra: object = {}) => ({ rowNumber: n, values: values(n), request: { ...BOUND, amount: 12_000, phone_number: `+23765000000${n}`, external_id: `X-${n}` }, errors: {}, duplicates: [], externalId: `X-${n}`, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: null, error: null, rehearsal: null, ...extra });
    const api = createFakeApi({
      'approvals:status': () => ok({ available: true as const, login: 'kofi', roles: ['finance'] }),
      'approvals:list': (input) => ok({ requests: input.scope === 'forMe' ? [batch] : [] }),
      'batches:rows': () => ok({ batchId: 'b-43', filter: 'all' as const, total: 25, offset: 0, rows: [row(2), row(3, { duplicates: [{ reason: 'phone_amount', rowNumbers: [2] }] }), row(4, { paidBy: { batchId: null, rowNumber: null } }), row(5, { request: null, errors: { amount: ['is not a number'] } })] } as never),
      'batches:get': () => ok({ importedBefore: [{ batchId: 'b-june', fileName: 'june.csv', state: 'done', createdAt: '2026-11-20T09:00:00Z' }] } as never),
    });
    await renderApp(api, { screen: 'approvals' });
    const card = within(await vi.waitFor(() => document.getElementById('approval-12-title')!.closest('li')!));
    const table = await card.findByRole('table', { name: 'Rows of batch b-43' });
    expect(api.callsOf('batches:rows')).toEqual([{ batchId: 'b-43', filter: 'all', offset: 0, limit: 10 }]);
    const cells = (n: number) => [...within(table).getByRole('cell', { name: `X-${n}` }).closest('tr')!.querySelectorAll('td')].map((td) => td.textContent);
    expect(cells(2)).toEqual(['2', 'Awa Row2', '+237650000002', '12,000 XAF', 'X-2', '']);
    expect(cells(3)[5]).toBe('Duplicate in the file');
    expect(cells(4)[5]).toBe('Already a payout (sent earlier)');
    expect(cells(5)[5]).toBe('Invalid');
    expect(card.getByText(/This file was sent before: batch b-june \(june\.csv,/)).toBeTruthy();
    expect(card.getByText('The first 4 of 25 rows.', { exact: false })).toBeTruthy();
    expect(card.getByRole('button', { name: 'Open the batch for all its rows' })).toBeTruthy();
    // Read-only: nothing on the card changes a row.
    expect(card.queryByRole('textbox', { name: /amount|phone/i })).toBeNull();
  });
});
