import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalTransaction, Result } from '../../shared/api';
import { createFakeApi, deferred, fail, journal, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

async function fillValid(user: Awaited<ReturnType<typeof renderApp>>['user']) {
  await user.type(screen.getByLabelText('Amount (XAF)'), '25000');
  await user.type(screen.getByLabelText('Phone number'), '+237650000001');
  await user.type(screen.getByLabelText('First name'), 'Ada');
  await user.type(screen.getByLabelText('Last name'), 'Ndiaye');
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
}

/** The error text tied to an input by aria-describedby. */
function errorOf(label: string): string {
  const input = screen.getByLabelText(label);
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

describe('New payment form', () => {
  it('shows local validation errors next to their fields and sends nothing', async () => {
    const api = createFakeApi();
    const { user } = await renderApp(api, { screen: 'payment' });
    await user.type(screen.getByLabelText('Phone number'), '0650000001');
    await user.type(screen.getByLabelText('Amount (XAF)'), '12.5');
    await user.click(screen.getByRole('button', { name: 'Request payment' }));
    expect(errorOf('Amount (XAF)')).toMatch(/whole number of XAF/);
    expect(errorOf('Phone number')).toMatch(/\+ followed by the country code/);
    expect(errorOf('First name')).toMatch(/is required/);
    expect(errorOf('Email')).toMatch(/valid email/);
    expect(screen.getByLabelText('First name')).toHaveProperty('ariaInvalid', 'true');
    expect(api.callsOf('payments:create')).toHaveLength(0);
  });

  it('prefills a fresh UUID external id and formats the amount with thousands separators', async () => {
    const api = createFakeApi();
    const { user } = await renderApp(api, { screen: 'payment' });
    const external = screen.getByLabelText('External id') as HTMLInputElement;
    expect(external.value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await user.type(screen.getByLabelText('Amount (XAF)'), '1250000');
    await user.tab();
    expect((screen.getByLabelText('Amount (XAF)') as HTMLInputElement).value).toBe('1,250,000');
    expect(screen.getByText('1,250,000 XAF')).toBeTruthy();
  });

  it('shows the API 422 field errors next to their fields', async () => {
    const api = createFakeApi({
      'payments:create': () => fail('VALIDATION_ERROR', 'The given data was invalid.', { 'customer.last_name': ['is blocked by the provider'], phone_number: ['is not reachable'] }),
    });
    const { user } = await renderApp(api, { screen: 'payment' });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Request payment' }));
    await waitFor(() => expect(errorOf('Last name')).toBe('is blocked by the provider'));
    expect(errorOf('Phone number')).toBe('is not reachable');
    expect(screen.getByText('The service found problems in some fields.')).toBeTruthy();
  });

  it('sends the request once however fast the button is pressed, then opens the timeline', async () => {
    const pending = deferred<Result<JournalTransaction>>();
    const api = createFakeApi({
      'payments:create': () => pending.promise,
      'transactions:get': () => ok({ transaction: journal({ id: 'j9', status: 'processing' }), timeline: [] }),
    });
    const { user } = await renderApp(api, { screen: 'payment' });
    await fillValid(user);
    const button = screen.getByRole('button', { name: 'Request payment' });
    await user.click(button);
    await user.click(button);
    await user.keyboard('{Enter}');
    expect(api.callsOf('payments:create')).toHaveLength(1);
    expect(screen.getByRole('button', { name: /Sending/ })).toHaveProperty('disabled', true);
    pending.resolve(ok(journal({ id: 'j9' })));
    const heading = await screen.findByRole('heading', { level: 1, name: '25,000 XAF' });
    expect(heading).toBeTruthy();
    expect(api.callsOf('payments:create')).toHaveLength(1);
    const request = (api.callsOf('payments:create')[0] as { request: Record<string, unknown> }).request;
    expect(request).toMatchObject({ amount: 25000, phone_number: '+237650000001', payment_method: 'service_demo' });
  });

  it('submits with Enter from a field', async () => {
    const api = createFakeApi({ 'payments:create': () => fail('MAINTENANCE_MODE', 'Down for maintenance') });
    const { user } = await renderApp(api, { screen: 'payment' });
    await fillValid(user);
    await user.keyboard('{Enter}');
    const alert = await screen.findByText('The service is offline for maintenance.');
    expect(within(alert.closest('[role="alert"]') as HTMLElement).getByText(/Code MAINTENANCE_MODE/)).toBeTruthy();
    expect(api.callsOf('payments:create')).toHaveLength(1);
  });

  it('opens the timeline of an outcome-unknown entry instead of an error box', async () => {
    const api = createFakeApi({
      'payments:create': () => ({ ok: false, error: { code: 'OUTCOME_UNKNOWN', message: 'timeout', journalId: 'j5' } }),
      'transactions:get': () => ok({ transaction: journal({ id: 'j5', state: 'outcome_unknown', status: null, transactionId: null }), timeline: [] }),
    });
    const { user } = await renderApp(api, { screen: 'payment' });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Request payment' }));
    expect(await screen.findByRole('region', { name: 'Outcome unknown' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Look it up' })).toBeTruthy();
  });

  it('sends once when Request payment is clicked twice in the same tick', async () => {
    const pending = deferred<Result<JournalTransaction>>();
    const api = createFakeApi({ 'payments:create': () => pending.promise });
    const { user } = await renderApp(api, { screen: 'payment' });
    await fillValid(user);
    const send = screen.getByRole('button', { name: 'Request payment' });
    act(() => {
      fireEvent.click(send);
      fireEvent.click(send);
    });
    await waitFor(() => expect(api.callsOf('payments:create')).toHaveLength(1));
    pending.resolve(fail('VALIDATION_ERROR', 'no'));
    await waitFor(() => expect(send).toHaveProperty('disabled', false));
    expect(api.callsOf('payments:create')).toHaveLength(1);
  });
});
