/**
 * History's filters (issue 26 item 10): the address carries the documented `status=failed` (older
 * `status=status:failed` links still open); From after To says so at the field; a filter that
 * cannot be searched hides the previous results instead of leaving them under the error.
 */
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeApi, journal, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function historyApi() {
  return createFakeApi({ 'transactions:search': () => ok({ rows: [journal({ id: 'j1' }), journal({ id: 'j2', externalId: 'SAL-2' })], total: 2, offset: 0, limit: 200 }) });
}
const status = () => screen.getByRole('combobox', { name: 'Status' }) as HTMLSelectElement;

describe('History address', () => {
  it('reads the documented status=failed, writes it back the same way, and still reads status=status:failed', async () => {
    const api = historyApi();
    const { stores } = await renderApp(api, { screen: 'history', params: { status: 'failed' } });
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toMatchObject({ query: { status: 'failed' } }));
    expect(status().value).toBe('status:failed');
    expect(stores.ui.getState().params).toEqual({ status: 'failed' });
    cleanup();

    const older = historyApi();
    const again = await renderApp(older, { screen: 'history', params: { status: 'status:failed' } });
    await waitFor(() => expect(older.callsOf('transactions:search').at(-1)).toMatchObject({ query: { status: 'failed' } }));
    expect(again.stores.ui.getState().params).toEqual({ status: 'failed' });
    cleanup();

    const states = historyApi();
    await renderApp(states, { screen: 'history', params: { status: 'outcome_unknown' } });
    await waitFor(() => expect(states.callsOf('transactions:search').at(-1)).toMatchObject({ query: { state: 'outcome_unknown' } }));
  });

  it('says at the field when the address names no status', async () => {
    const api = historyApi();
    await renderApp(api, { screen: 'history', params: { status: 'paid' } });
    await waitFor(() => expect(status()).toHaveProperty('ariaInvalid', 'true'));
    expect(screen.getByRole('combobox', { name: 'Status' }).getAttribute('aria-describedby')).toBe('h-status-error');
    expect(document.getElementById('h-status-error')?.textContent).toBe('“paid” is not a status: showing every status.');
  });
});

describe('History filters that cannot be searched', () => {
  it('says at From that From is after To, and searches nothing for it', async () => {
    const api = historyApi();
    const { user } = await renderApp(api, { screen: 'history' });
    await screen.findByRole('region', { name: /^Transactions, 2 rows/ });
    const searches = api.callsOf('transactions:search').length;
    await user.type(screen.getByLabelText('From'), '2026-11-20');
    await user.type(screen.getByLabelText('To'), '2026-11-10');
    const from = screen.getByLabelText('From');
    await waitFor(() => expect(from.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(from.getAttribute('aria-describedby')!)?.textContent).toBe('From is after To: no day is in that range. Pick a From on or before To.');
    expect(screen.queryByRole('region', { name: /^Transactions,/ })).toBeNull();
    // A search for the valid From alone may have run before To was typed; none for the impossible range.
    expect(api.callsOf('transactions:search').slice(searches).every((call) => !(call as { query: { to?: string } }).query.to)).toBe(true);
  });

  it('hides the previous results under an invalid minimum amount, and shows them again once it is fixed', async () => {
    const api = historyApi();
    const { user } = await renderApp(api, { screen: 'history' });
    await screen.findByRole('region', { name: /^Transactions, 2 rows/ });
    const min = screen.getByLabelText('Min amount');
    await user.type(min, '12abc');
    await waitFor(() => expect(min.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('h-min-error')?.textContent).toMatch(/^Minimum amount /);
    expect(screen.queryByRole('region', { name: /^Transactions,/ })).toBeNull();
    expect(screen.getByText('Fix the marked filter to see the matching transactions.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toHaveProperty('disabled', true);
    await user.clear(min);
    await user.type(min, '12');
    await screen.findByRole('region', { name: /^Transactions, 2 rows/ });
    expect(min.getAttribute('aria-invalid')).toBeNull();
  });
});
