import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelInput, JournalTransaction, PayoutQuote, Result } from '../../shared/api';
import { createFakeApi, deferred, fail, journal, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function quoteFor(input: ChannelInput<'payouts:prepare'>, overrides: Partial<PayoutQuote> = {}): Result<PayoutQuote> {
  const { request } = input;
  return ok({
    profileId: 'local',
    profileName: 'Local sandbox',
    environment: 'sandbox',
    recipient: { phoneNumber: request.phone_number, name: `${request.customer.first_name} ${request.customer.last_name}` },
    amount: request.amount,
    currency: 'XAF',
    fee: 150,
    total: request.amount + 150,
    balance: 100_000,
    confirmationToken: `token-${request.amount}`,
    expiresAt: '2026-11-21T10:05:00.000Z',
    ...overrides,
  });
}

async function fillPayout(user: Awaited<ReturnType<typeof renderApp>>['user'], amount: string) {
  const form = screen.getByRole('form', { name: 'New payout' });
  await user.type(within(form).getByLabelText('Amount (XAF)'), amount);
  await user.type(within(form).getByLabelText('Phone number'), '+237650000001');
  await user.type(within(form).getByLabelText('First name'), 'Awa');
  await user.type(within(form).getByLabelText('Last name'), 'Fofana');
  await user.type(within(form).getByLabelText('Email'), 'awa@example.com');
}

describe('New payout', () => {
  it('shows the wallet balance and restates recipient, amount, fee, environment and profile before sending', async () => {
    const api = createFakeApi({ 'payouts:prepare': (input) => quoteFor(input) });
    const { user } = await renderApp(api, { screen: 'payout' });
    expect(await screen.findByText('100,000 XAF')).toBeTruthy();
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    expect(within(dialog).getByText(/Awa Fofana/)).toBeTruthy();
    expect(within(dialog).getByText('+237650000001')).toBeTruthy();
    expect(within(dialog).getByText('20,000 XAF')).toBeTruthy();
    expect(within(dialog).getByText('150 XAF')).toBeTruthy();
    expect(within(dialog).getByText('20,150 XAF')).toBeTruthy();
    expect(within(dialog).getByText('sandbox')).toBeTruthy();
    expect(within(dialog).getByText('Local sandbox')).toBeTruthy();
    expect(api.callsOf('payouts:initiate')).toHaveLength(0);
  });

  it('sends once however often Send is pressed', async () => {
    const pending = deferred<Result<JournalTransaction>>();
    const api = createFakeApi({
      'payouts:prepare': (input) => quoteFor(input),
      'payouts:initiate': () => pending.promise,
      'transactions:get': () => ok({ transaction: journal({ id: 'p1', kind: 'payout', amount: 20000 }), timeline: [] }),
    });
    const { user } = await renderApp(api, { screen: 'payout' });
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    const send = within(dialog).getByRole('button', { name: 'Send 20,000 XAF' });
    await user.click(send);
    await user.click(send);
    await user.keyboard('{Enter}');
    expect(api.callsOf('payouts:initiate')).toEqual([expect.objectContaining({ confirmationToken: 'token-20000' })]);
    pending.resolve(ok(journal({ id: 'p1', kind: 'payout', amount: 20000 })));
    expect(await screen.findByRole('heading', { level: 1, name: '20,000 XAF' })).toBeTruthy();
    expect(api.callsOf('payouts:initiate')).toHaveLength(1);
  });

  it('explains INSUFFICIENT_FUNDS from the quote and does not offer to send', async () => {
    const api = createFakeApi({ 'payouts:prepare': (input) => quoteFor(input, { balance: 10_000 }) });
    const { user } = await renderApp(api, { screen: 'payout' });
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    expect(within(dialog).getByText('The wallet balance does not cover the amount plus the fee.')).toBeTruthy();
    expect(within(dialog).getByText(/Top up the wallet or send a smaller amount/)).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Send 20,000 XAF' })).toHaveProperty('disabled', true);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('has focus inside the dialog as soon as it is shown, and Escape closes it wherever focus fell', async () => {
    const api = createFakeApi({ 'payouts:prepare': (input) => quoteFor(input) });
    const { user } = await renderApp(api, { screen: 'payout' });
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    // Checked in the same turn the dialog appears in: no wait for a later effect.
    expect(dialog.contains(document.activeElement)).toBe(true);
    (document.activeElement as HTMLElement).blur();
    expect(document.activeElement).toBe(document.body);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsOf('payouts:initiate')).toEqual([]);
  });

  it('explains INSUFFICIENT_FUNDS and LIVE_MODE_NOT_ENABLED answered by the service', async () => {
    let code = 'INSUFFICIENT_FUNDS';
    const api = createFakeApi({
      'payouts:prepare': (input) => quoteFor(input, { fee: null, total: null, balance: null }),
      'payouts:initiate': () => fail(code, 'refused'),
    });
    const { user } = await renderApp(api, { screen: 'payout' });
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Send 20,000 XAF' }));
    expect(await screen.findByText('The wallet balance does not cover the amount plus the fee.')).toBeTruthy();
    code = 'LIVE_MODE_NOT_ENABLED';
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Send 20,000 XAF' }));
    expect(await screen.findByText('This application is not approved for live transactions yet.')).toBeTruthy();
    expect(screen.getByText(/Ask the service to approve live mode/)).toBeTruthy();
  });

  it('on a live profile requires the typed amount before the quote, and sends with the token bound to it', async () => {
    const live = profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false });
    const api = createFakeApi(
      {
        'payouts:prepare': (input) =>
          input.typedAmount === input.request.amount
            ? quoteFor(input, { environment: 'live', profileName: 'Acme live', confirmationToken: 'live-token' })
            : fail('CONFIRMATION_REQUIRED', 'type the amount'),
        'payouts:initiate': () => ok(journal({ id: 'p2', kind: 'payout', environment: 'live', amount: 15000 })),
        'transactions:get': () => ok({ transaction: journal({ id: 'p2', kind: 'payout', environment: 'live', amount: 15000 }), timeline: [] }),
      },
      [live],
    );
    const { user } = await renderApp(api, { screen: 'payout' });
    expect(screen.getByRole('status', { name: 'Environment: LIVE, real money' })).toBeTruthy();
    await fillPayout(user, '15000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm LIVE payout' });
    const confirm = within(dialog).getByRole('button', { name: 'Confirm amount' });
    expect(confirm).toHaveProperty('disabled', true);
    await user.type(within(dialog).getByLabelText('Type the amount (XAF) to confirm'), '1500');
    expect(within(dialog).getByText('does not match the payout amount')).toBeTruthy();
    expect(confirm).toHaveProperty('disabled', true);
    await user.type(within(dialog).getByLabelText('Type the amount (XAF) to confirm'), '0');
    expect(confirm).toHaveProperty('disabled', false);
    await user.click(confirm);
    await user.click(await within(dialog).findByRole('button', { name: 'Send 15,000 XAF' }));
    expect(await screen.findByRole('heading', { level: 1, name: '15,000 XAF' })).toBeTruthy();
    expect(api.callsOf('payouts:prepare')).toEqual([expect.objectContaining({ typedAmount: 15000 })]);
    expect(api.callsOf('payouts:initiate')).toEqual([expect.objectContaining({ confirmationToken: 'live-token' })]);
  });

  it('sends once when Send is clicked twice in the same tick', async () => {
    const pending = deferred<Result<JournalTransaction>>();
    const api = createFakeApi({ 'payouts:prepare': (input) => quoteFor(input), 'payouts:initiate': () => pending.promise });
    const { user } = await renderApp(api, { screen: 'payout' });
    await fillPayout(user, '20000');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    const send = within(dialog).getByRole('button', { name: 'Send 20,000 XAF' });
    act(() => {
      fireEvent.click(send);
      fireEvent.click(send);
    });
    await waitFor(() => expect(api.callsOf('payouts:initiate')).toHaveLength(1));
    pending.resolve(fail('INSUFFICIENT_FUNDS', 'no'));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Confirm payout' })).toBeNull());
    expect(api.callsOf('payouts:initiate')).toHaveLength(1);
  });
});
