/**
 * Issue 9, console items on the transaction screen: a failure's reason and the money of a failed
 * transaction (1), the sandbox status event's name (2), payout wording and figures (3), messages
 * that belong to their action (4) and Verify on final transactions (9).
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransactionDetail } from '../../shared/api';
import { createFakeApi, event, journal, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function detail(overrides: Parameters<typeof journal>[0], timeline = [event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null })]): TransactionDetail {
  return { transaction: journal(overrides), timeline };
}

function factOf(term: string): string {
  const dt = screen.getAllByRole('term').find((element) => element.textContent === term);
  if (!dt) throw new Error(`no fact ${term}`);
  return dt.nextElementSibling?.textContent ?? '';
}

describe('a failed transaction', () => {
  it('says why, and shows fee and net amount as not charged', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ status: 'failed', failedCode: 'PAYER_NOT_FOUND', fee: 375, netAmount: 24625 })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const note = await screen.findByRole('note', { name: 'Failed' });
    expect(note.textContent).toBe('Failed: The customer’s mobile-money account was not found. (PAYER_NOT_FOUND)');
    expect(factOf('Fee')).toBe('Not charged (the payment did not go through)');
    expect(factOf('Net amount')).toBe('Not charged (the payment did not go through)');
    expect(screen.queryByText('375 XAF')).toBeNull();
  });

  it('a cancelled payout charges nothing either', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ kind: 'payout', status: 'cancelled', fee: 250 })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Cancelled' });
    expect(factOf('Fee')).toBe('Not charged (the payout did not go through)');
    expect(factOf('Total taken from the wallet')).toBe('Not charged (the payout did not go through)');
    // Nothing was sent: the amount is the one asked (issue 37 item 7).
    expect(factOf('Amount asked')).toBe('25,000 XAF');
    expect(screen.queryByText('Amount sent')).toBeNull();
  });
});

describe('the timeline', () => {
  it('names a sandbox status push for what it is, and keeps "webhook" for real deliveries', async () => {
    const api = createFakeApi({
      'transactions:get': () =>
        ok(detail({ status: 'failed', failedCode: 'PAYER_NOT_FOUND' }, [
          event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null }),
          event(2, '2026-11-21T10:00:02.000Z', { type: 'sandbox_status', status: 'failed', message: 'status changed in the local sandbox' }),
        ])),
    });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const list = await screen.findByRole('list', { name: 'Timeline, newest first' });
    expect(within(list).getAllByRole('listitem')[0]!.textContent).toContain('Status changed in the local sandbox: failed');
    expect(list.textContent).not.toMatch(/webhook/i);
  });
});

describe('a payout', () => {
  it('a failed payout reads "Amount asked", one still processing "Amount", never "Amount sent"', async () => {
    let status: 'failed' | 'processing' = 'failed';
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ kind: 'payout', status, failedCode: status === 'failed' ? 'PAYER_NOT_FOUND' : null, amount: 750_000 })) });
    const view = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Failed' });
    expect(factOf('Amount asked')).toBe('750,000 XAF');
    expect(screen.queryByText('Amount sent')).toBeNull();
    view.unmount();
    status = 'processing';
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Processing' });
    expect(factOf('Amount')).toBe('750,000 XAF');
    expect(screen.queryByText('Amount sent')).toBeNull();
  });

  it('speaks of a recipient and shows amount sent, fee and total taken from the wallet', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ kind: 'payout', status: 'completed', amount: 20_000, fee: 250, netAmount: 19_750 })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Completed' });
    expect(factOf('Amount sent')).toBe('20,000 XAF');
    expect(factOf('Fee')).toBe('250 XAF');
    expect(factOf('Total taken from the wallet')).toBe('20,250 XAF');
    expect(factOf('Recipient')).toContain('Ada Ndiaye');
    expect(screen.queryByText('Customer')).toBeNull();
    expect(screen.queryByText('Net amount')).toBeNull();
    expect(screen.queryByText('19,750 XAF')).toBeNull();
  });

  it('does not echo the service’s “customer will receive a prompt” for a payout', async () => {
    const api = createFakeApi({
      'transactions:get': () =>
        ok(detail({ kind: 'payout', status: 'processing' }, [
          event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null, message: 'payout request sent' }),
          event(2, '2026-11-21T10:00:01.000Z', { type: 'response', status: 'processing', httpStatus: 200, message: 'Payout initiated: the customer will receive a prompt to approve it.' }),
        ])),
    });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const list = await screen.findByRole('list', { name: 'Timeline, newest first' });
    expect(list.textContent).toContain('The recipient receives the money once the payout completes.');
    expect(list.textContent).not.toMatch(/customer|prompt/i);
  });

  it('says why a payout failed in terms of its recipient', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ kind: 'payout', status: 'failed', failedCode: 'PAYER_NOT_FOUND' })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const note = await screen.findByRole('note', { name: 'Failed' });
    expect(note.textContent).toContain('The recipient’s mobile-money account was not found.');
  });

  it('the payout form speaks of the recipient, who receives money', async () => {
    const api = createFakeApi();
    await renderApp(api, { screen: 'payout' });
    const form = await screen.findByRole('form', { name: 'New payout' });
    expect(within(form).getByRole('group', { name: 'Recipient' })).toBeTruthy();
    expect(within(form).getByText(/Receives the money on this mobile-money number/)).toBeTruthy();
    expect(form.textContent).not.toMatch(/customer|prompt to approve/i);
  });
});

describe('Verify', () => {
  it('is the main action while the status is open, and secondary once it is final', async () => {
    let current = detail({ status: 'processing' });
    const api = createFakeApi({ 'transactions:get': () => ok(current) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    expect((await screen.findByRole('button', { name: 'Verify' })).className).toBe('primary');
    current = detail({ status: 'completed' });
    api.emit('transaction:changed', { journalId: 'j1', status: 'completed', state: 'known' });
    await screen.findByRole('status', { name: 'Status: Completed' });
    expect(screen.getByRole('button', { name: 'Verify' }).className).toBe('secondary');
  });

  it('its message belongs to the Verify: after a Lookup of the same transaction it is gone, with no stray space', async () => {
    let current = detail({ status: 'processing' });
    const api = createFakeApi({
      'transactions:get': () => ok(current),
      'transactions:verify': () => {
        current = detail({ status: 'completed' });
        return ok({ message: 'Payment completed.', transaction: current.transaction });
      },
      'transactions:lookup': () => ok({ found: true as const, transaction: current.transaction, source: 'service' as const }),
    });
    const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await user.click(await screen.findByRole('button', { name: 'Verify' }));
    const outcome = await screen.findByRole('status', { name: 'Verify outcome' });
    await waitFor(() => expect(outcome.textContent).toBe('Payment completed. Status now: completed.'));
    await user.click(within(screen.getByRole('navigation', { name: 'Screens' })).getByRole('button', { name: 'Lookup' }));
    await user.type(await screen.findByRole('searchbox', { name: 'Transaction id' }), 'TE_123{Enter}');
    await screen.findByRole('heading', { level: 1, name: '25,000 XAF' });
    expect(screen.queryByRole('status', { name: 'Verify outcome' })).toBeNull();
  });
});

describe('Lookup of the wrong kind', () => {
  it('says the id exists as the other kind and switches to it in one click', async () => {
    const api = createFakeApi({
      'transactions:lookup': (input) =>
        input.kind === 'payment'
          ? ok({ found: false as const, environment: 'sandbox', profileName: 'Local sandbox', otherKind: 'payout' as const })
          : ok({ found: true as const, transaction: journal({ kind: 'payout', amount: 20_000 }), source: 'service' as const }),
      'transactions:get': () => ok(detail({ kind: 'payout', amount: 20_000 })),
    });
    localStorage.clear();
    const { user } = await renderApp(api, { screen: 'lookup' });
    await user.type(screen.getByRole('searchbox', { name: 'Transaction id' }), 'TE_PAYOUT{Enter}');
    const status = await screen.findByRole('status', { name: '' });
    expect(status.textContent).toContain('Payment with transaction id “TE_PAYOUT” not found in sandbox for Local sandbox.');
    expect(status.textContent).toContain('It exists as a payout.');
    await user.click(within(status).getByRole('button', { name: 'Look it up as a payout' }));
    expect(await screen.findByRole('heading', { level: 1, name: '20,000 XAF' })).toBeTruthy();
    expect(api.callsOf('transactions:lookup')).toEqual([
      { id: 'TE_PAYOUT', by: 'transaction_id', kind: 'payment' },
      { id: 'TE_PAYOUT', by: 'transaction_id', kind: 'payout' },
    ]);
  });
});

describe('History filters', () => {
  it('apply as they change, without pressing Search', async () => {
    const api = createFakeApi({ 'transactions:search': () => ok({ rows: [], total: 0, offset: 0, limit: 200 }) });
    const { user } = await renderApp(api, { screen: 'history' });
    await screen.findByText(/No transactions match/);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'status:failed');
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toMatchObject({ query: { status: 'failed' } }));
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'Ndiaye');
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toMatchObject({ query: { status: 'failed', text: 'Ndiaye' } }));
    expect(screen.getByRole('option', { name: 'Failed' })).toBeTruthy();
  });

  it('offer every status an entry can show, the console\'s own states (sending, outcome unknown, refused) too', async () => {
    const api = createFakeApi({ 'transactions:search': () => ok({ rows: [], total: 0, offset: 0, limit: 200 }) });
    const { user } = await renderApp(api, { screen: 'history' });
    await screen.findByText(/No transactions match/);
    const status = screen.getByRole('combobox', { name: 'Status' });
    expect(within(status).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Any', 'Initiated', 'Processing', 'Completed', 'Failed', 'Cancelled', 'Sending…', 'Outcome unknown', 'Rejected',
    ]);
    await user.selectOptions(status, 'state:outcome_unknown');
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toEqual({ query: { state: 'outcome_unknown' }, offset: 0, limit: 200 }));
    await user.selectOptions(status, 'state:pending');
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toEqual({ query: { state: 'pending' }, offset: 0, limit: 200 }));
  });
});
