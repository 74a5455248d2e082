/**
 * The payment and payout forms' one phone rule (the bulk file's: spaces between digit groups are
 * fine), the words for a negative amount, and the error summary a refused form moves focus to.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelInput } from '../../shared/api';
import { checkRows } from '../../shared/batch';
import { createFakeApi, fail, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

function errorOf(label: string): string {
  const input = screen.getByLabelText(label);
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

const quote = (input: ChannelInput<'payouts:prepare'>) =>
  ok({
    profileId: 'local',
    profileName: 'Local sandbox',
    environment: 'sandbox' as const,
    recipient: { phoneNumber: input.request.phone_number, name: 'Awa Fofana' },
    amount: input.request.amount,
    currency: 'XAF',
    fee: 150,
    total: input.request.amount + 150,
    balance: 100_000,
    confirmationToken: 't',
    expiresAt: '2026-11-21T10:05:00.000Z',
  });

describe('one phone rule, the bulk file’s', () => {
  it('takes a phone written with spaces on the payout form, as the bulk import does, and sends it digits only', async () => {
    const spaced = '+237 650\u00a000 00 01';
    const bulk = checkRows([{ rowNumber: 2, values: { phone_number: spaced, amount: '500', first_name: 'Awa', last_name: 'Fofana', email: 'awa@example.com', description: '', external_id: '', payment_method: 'momo_cm', meta: {} } }], { batchId: 'b1', defaultPaymentMethod: null });
    expect(bulk[0]!.request?.phone_number).toBe('+237650000001');

    const api = createFakeApi({ 'payouts:prepare': quote });
    const { user } = await renderApp(api, { screen: 'payout' });
    const form = screen.getByRole('form', { name: 'New payout' });
    await user.type(within(form).getByLabelText('Amount (XAF)'), '500');
    await user.type(within(form).getByLabelText('Phone number'), spaced);
    await user.type(within(form).getByLabelText('First name'), 'Awa');
    await user.type(within(form).getByLabelText('Last name'), 'Fofana');
    await user.type(within(form).getByLabelText('Email'), 'awa@example.com');
    await user.click(screen.getByRole('button', { name: 'Review payout' }));
    await waitFor(() => expect(api.callsOf('payouts:prepare')).toHaveLength(1));
    expect((api.callsOf('payouts:prepare')[0] as ChannelInput<'payouts:prepare'>).request.phone_number).toBe(bulk[0]!.request?.phone_number);
  });

  it('says a negative amount must be greater than 0, not that it must be a whole number', async () => {
    const api = createFakeApi();
    const { user } = await renderApp(api, { screen: 'payment' });
    await user.type(screen.getByLabelText('Amount (XAF)'), '-500');
    await user.click(screen.getByRole('button', { name: 'Request payment' }));
    expect(errorOf('Amount (XAF)')).toBe('must be greater than 0');
  });
});

describe('the error summary of a refused form', () => {
  for (const [screenName, button] of [['payment', 'Request payment'], ['payout', 'Review payout']] as const) {
    it(`moves focus from the ${screenName} form's button to a summary that links to each field`, async () => {
      const api = createFakeApi();
      const { user } = await renderApp(api, { screen: screenName });
      await user.type(screen.getByLabelText('Phone number'), '0650');
      await user.click(screen.getByRole('button', { name: button }));
      const summary = await screen.findByTestId('error-summary');
      await waitFor(() => expect(document.activeElement).toBe(summary));
      expect(within(summary).getByRole('heading').textContent).toBe('5 fields need a fix before this can be sent:');
      const links = within(summary).getAllByRole('link');
      expect(links.map((link) => link.textContent?.split(':')[0])).toEqual(['Amount (XAF)', 'Phone number', 'First name', 'Last name', 'Email']);
      await user.click(within(summary).getByRole('link', { name: /^Phone number:/ }));
      expect(document.activeElement).toBe(screen.getByLabelText('Phone number'));
      expect(window.location.hash).not.toContain(`${screenName}-phone`);
    });
  }

  it('moves focus to the summary when the service names the fields (422)', async () => {
    const api = createFakeApi({ 'payments:create': () => fail('VALIDATION_ERROR', 'The given data was invalid.', { phone_number: ['is not reachable'] }) });
    const { user } = await renderApp(api, { screen: 'payment' });
    await user.type(screen.getByLabelText('Amount (XAF)'), '500');
    await user.type(screen.getByLabelText('Phone number'), '+237650000001');
    await user.type(screen.getByLabelText('First name'), 'Ada');
    await user.type(screen.getByLabelText('Last name'), 'Ndiaye');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Request payment' }));
    const summary = await screen.findByTestId('error-summary');
    await waitFor(() => expect(document.activeElement).toBe(summary));
    expect(within(summary).getByRole('link').textContent).toBe('Phone number: is not reachable');
  });
});
