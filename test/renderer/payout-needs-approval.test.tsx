/**
 * The confirmation of a payout a team workspace's policy covers (issue 37 item 1): it says the
 * payout needs approval, from whom, and asks; no Send, nothing red. Asked, it says where to send
 * it from once approved (the request's card), nothing to retype.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, ChannelInput, PayoutQuote, Result } from '../../shared/api';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function quoteFor(input: ChannelInput<'payouts:prepare'>): Result<PayoutQuote> {
  const { request } = input;
  return ok({
    profileId: 'acme-main', profileName: 'Acme main', environment: 'sandbox',
    recipient: { phoneNumber: request.phone_number, name: `${request.customer.first_name} ${request.customer.last_name}` },
    amount: request.amount, currency: 'XAF', fee: 150, total: request.amount + 150, balance: 10_000_000,
    confirmationToken: 'token', expiresAt: '2026-11-21T10:05:00.000Z',
    approval: { subject: 'payout', environment: 'sandbox', amount: request.amount, rows: 1, approvals: 1, approverRole: 'finance', currency: 'XAF', externalId: request.external_id ?? null },
  });
}

describe('a payout the policy covers', () => {
  it('is confirmed as needing approval, with Ask instead of Send and no error; asked, it says where to send it', async () => {
    const api = createFakeApi({
      'payouts:prepare': (input) => quoteFor(input),
      'approvals:askPayout': (input) => ok({ request: { id: 12, state: 'awaiting' } as ApprovalRequest, externalId: input.request.external_id ?? 'x' }),
    });
    const { user } = await renderApp(api, { screen: 'payout' });
    const form = screen.getByRole('form', { name: 'New payout' });
    await user.type(within(form).getByLabelText('Amount (XAF)'), '400000');
    await user.type(within(form).getByLabelText('Phone number'), '+237650000001');
    await user.type(within(form).getByLabelText('First name'), 'Awa');
    await user.type(within(form).getByLabelText('Last name'), 'Fofana');
    await user.type(within(form).getByLabelText('Email'), 'awa@example.com');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm payout' });
    expect(within(dialog).getByText('This payout of 400,000 XAF needs one approval by finance before it is sent.')).toBeTruthy();
    expect(within(dialog).queryByRole('button', { name: /^Send/ })).toBeNull();
    expect(dialog.querySelector('.notice-error')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Ask for approval of this payout' }));
    expect(await within(dialog).findByText(/it awaits approval\. Once approved, send it from its card in Approvals/)).toBeTruthy();
    expect(api.callsOf('approvals:askPayout')).toHaveLength(1);
    expect(api.callsOf('payouts:initiate')).toEqual([]);
  });
});
