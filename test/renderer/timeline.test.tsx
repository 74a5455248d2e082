import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelResults, Result, TransactionDetail, WorkspaceStatus } from '../../shared/api';
import { createFakeApi, deferred, event, fail, journal, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function detail(overrides: Parameters<typeof journal>[0] = {}, timeline = [
  event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null, message: 'payment request sent' }),
  event(3, '2026-11-21T10:00:09.000Z', { type: 'status_seen', status: 'processing', message: 'status seen while watching' }),
  event(2, '2026-11-21T10:00:01.000Z', { type: 'response', status: 'processing', httpStatus: 200, message: 'Payment initiated' }),
]): TransactionDetail {
  return { transaction: journal(overrides), timeline };
}

describe('Transaction timeline', () => {
  it('shows the status badge, the amounts with thousands separators, ids with copy buttons and metadata', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    expect(await screen.findByRole('status', { name: 'Status: Processing' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: '25,000 XAF' })).toBeTruthy();
    expect(screen.getByText('500 XAF')).toBeTruthy();
    expect(screen.getByText('24,500 XAF')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy transaction id' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy external id' })).toBeTruthy();
    expect(screen.getByRole('rowheader', { name: 'order' })).toBeTruthy();
    expect(screen.getByText('A-17')).toBeTruthy();
  });

  it('reads "Not sent" for a request refused before anything was created (a 429), and "Rejected" for a refusal (issue 23 item 3)', async () => {
    const notSent = { code: 'NOT_SENT', message: 'Too many requests', httpStatus: 429 };
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ state: 'rejected', status: null, transactionId: null, lastError: notSent })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    expect(await screen.findByRole('status', { name: 'Status: Not sent' })).toBeTruthy();
    cleanup();
    const refused = createFakeApi({ 'transactions:get': () => ok(detail({ state: 'rejected', status: null, transactionId: null, lastError: { code: 'INVALID_PHONE', message: 'bad', httpStatus: 400 } })) });
    await renderApp(refused, { screen: 'timeline', journalId: 'j1' });
    expect(await screen.findByRole('status', { name: 'Status: Rejected' })).toBeTruthy();
  });

  it('lists the events newest first', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const list = await screen.findByRole('list', { name: 'Timeline, newest first' });
    const titles = within(list).getAllByRole('listitem').map((item) => item.querySelector('.event-title')?.textContent);
    expect(titles).toEqual(['Status seen: processing', 'Service accepted it: processing', 'Request sent']);
  });

  it('Verify shows a spinner, then the outcome message, the new status and the new event', async () => {
    let current = detail();
    const pending = deferred<Result<ChannelResults['transactions:verify']>>();
    const api = createFakeApi({ 'transactions:get': () => ok(current), 'transactions:verify': () => pending.promise });
    const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await user.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(screen.getByRole('progressbar', { name: 'Verifying with the provider' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Verifying/ })).toHaveProperty('disabled', true);
    current = detail({ status: 'completed' }, [
      ...current.timeline,
      event(4, '2026-11-21T10:01:00.000Z', { type: 'verify_result', status: 'completed', httpStatus: 200, message: 'Payment completed.' }),
    ]);
    pending.resolve(ok({ message: 'Payment completed.', transaction: current.transaction }));
    const outcome = await screen.findByRole('status', { name: 'Verify outcome' });
    expect(outcome.textContent).toContain('Payment completed.');
    await waitFor(() => expect(screen.getByRole('status', { name: 'Status: Completed' })).toBeTruthy());
    expect(outcome.textContent).toContain('completed');
    const list = screen.getByRole('list', { name: 'Timeline, newest first' });
    expect(within(list).getAllByRole('listitem')[0]!.textContent).toContain('Verified with the provider: completed');
    expect(screen.queryByRole('progressbar', { name: 'Verifying with the provider' })).toBeNull();
  });

  it('states a failed_code as a human sentence', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail({ status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS' })) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    expect(await screen.findByText('The customer did not have enough money in their account.')).toBeTruthy();
    expect(screen.getByRole('status', { name: 'Status: Failed' })).toBeTruthy();
  });

  it('fetches again when main pushes transaction:changed', async () => {
    let current = detail();
    const api = createFakeApi({ 'transactions:get': () => ok(current) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Processing' });
    current = detail({ status: 'completed' });
    api.emit('transaction:changed', { journalId: 'j1', status: 'completed', state: 'known' });
    expect(await screen.findByRole('status', { name: 'Status: Completed' })).toBeTruthy();
  });

  it('for an outcome-unknown entry looks it up first and offers Send again only when it does not exist', async () => {
    const unknown = detail({ state: 'outcome_unknown', status: null, transactionId: null }, [
      event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null }),
      event(2, '2026-11-21T10:00:30.000Z', { type: 'transport_failure', status: null, outcome: 'unknown' }),
    ]);
    let exists = true;
    const api = createFakeApi({
      'transactions:get': () => ok(unknown),
      'transactions:resolveUnknown': () => ok({ exists, transaction: unknown.transaction } as ChannelResults['transactions:resolveUnknown']),
      'transactions:resend': () => ok(journal({ id: 'j1', status: 'processing' })),
    });
    const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const region = await screen.findByRole('region', { name: 'Outcome unknown' });
    expect(within(region).queryByRole('button', { name: /Send again/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Verify' })).toBeNull();
    await user.click(within(region).getByRole('button', { name: 'Look it up' }));
    expect(await within(region).findByText(/it was sent once, nothing to resend/)).toBeTruthy();
    expect(within(region).queryByRole('button', { name: /Send again/ })).toBeNull();
    exists = false;
    await user.click(within(region).getByRole('button', { name: 'Look it up' }));
    const again = await within(region).findByRole('button', { name: 'Send again (same external id)' });
    await user.click(again);
    await waitFor(() => expect(api.callsOf('transactions:resend')).toEqual([{ journalId: 'j1' }]));
  });
  describe('Send again of an outcome-unknown entry', () => {
    const unknown = detail({ state: 'outcome_unknown', status: null, transactionId: null }, [
      event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null }),
      event(2, '2026-11-21T10:00:30.000Z', { type: 'transport_failure', status: null, outcome: 'unknown' }),
    ]);
    async function offerSendAgain(resend: () => Promise<Result<ChannelResults['transactions:resend']>>) {
      const api = createFakeApi({
        'transactions:get': () => ok(unknown),
        'transactions:resolveUnknown': () => ok({ exists: false, transaction: unknown.transaction } as ChannelResults['transactions:resolveUnknown']),
        'transactions:resend': resend,
      });
      const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
      const region = await screen.findByRole('region', { name: 'Outcome unknown' });
      await user.click(within(region).getByRole('button', { name: 'Look it up' }));
      return { api, region, again: await within(region).findByRole('button', { name: 'Send again (same external id)' }) };
    }

    it('resends once when it is clicked twice in the same tick', async () => {
      const pending = deferred<Result<ChannelResults['transactions:resend']>>();
      const { api, again } = await offerSendAgain(() => pending.promise);
      act(() => {
        fireEvent.click(again);
        fireEvent.click(again);
      });
      await waitFor(() => expect(api.callsOf('transactions:resend')).toHaveLength(1));
      pending.resolve(ok(journal({ id: 'j2', status: 'processing' })));
      await waitFor(() => expect(api.callsOf('transactions:get')).toContainEqual({ journalId: 'j2' }));
      expect(api.callsOf('transactions:resend')).toHaveLength(1);
    });

    it('may be tried again after the console refused the resend', async () => {
      let answer: Result<ChannelResults['transactions:resend']> = fail('SECRET_MISSING', 'No secret key is stored for this profile.');
      const { api, region, again } = await offerSendAgain(async () => answer);
      fireEvent.click(again);
      expect(await within(region).findByText('No secret key is stored for this profile.')).toBeTruthy();
      answer = ok(journal({ id: 'j2', status: 'processing' }));
      // Any resend answer ends the look-up's verdict: it is asked again before the button shows.
      fireEvent.click(within(region).getByRole('button', { name: 'Look it up' }));
      const second = await within(region).findByRole('button', { name: 'Send again (same external id)' });
      expect((second as HTMLButtonElement).disabled).toBe(false);
      fireEvent.click(second);
      await waitFor(() => expect(api.callsOf('transactions:resend')).toHaveLength(2));
    });
  });
});

describe('Verify by workspace role (docs/decisions/start-up-by-role.md)', () => {
  const place = { host: 'db.example.com', port: 5432, database: 'paydesk_team', user: 'amina', tls: 'verify' as const, hasCa: true };
  const on = (roles: ('finance' | 'support' | 'admin')[]): WorkspaceStatus => ({ store: 'workspace', place, state: 'open', who: { login: 'amina', roles }, schemaVersion: 34 });

  async function openAs(status: WorkspaceStatus) {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()), 'workspace:status': () => ok(status) });
    const view = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByRole('status', { name: 'Status: Processing' });
    // The status is read once at start: wait until the workspace bar knows who is signed in.
    await act(async () => {
      await view.stores.workspace.getState().load();
    });
    return api;
  }

  it('an admin-only login sees Verify disabled, with the reason, instead of a role error after pressing it', async () => {
    await openAs(on(['admin']));
    expect(screen.getByRole('button', { name: 'Verify' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('note').textContent).toContain('Your workspace role (admin) may not Verify');
  });

  it.each([['support'], ['finance']] as const)('a %s login may Verify (no note)', async (role) => {
    await openAs(on([role]));
    expect(screen.getByRole('button', { name: 'Verify' })).toHaveProperty('disabled', false);
    expect(screen.queryByText(/may not Verify/)).toBeNull();
  });
});
