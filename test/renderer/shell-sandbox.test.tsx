import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxStatus } from '../../shared/api';
import { createFakeApi, fail, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

const engine: SandboxStatus = {
  running: true,
  url: 'http://127.0.0.1:4010',
  keys: [{ environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_demo', secretKey: 'sk_sandbox_payment_demo' }],
  maintenance: false,
  settleMs: 2000,
  webhookUrl: null,
  clockOffsetSeconds: 0,
  error: null,
};

function sandboxHandlers() {
  let maintenance = false;
  return {
    'sandbox:status': () => ok({ ...engine, maintenance }),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_250_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': () =>
      ok({
        deliveries: [
          {
            id: 'd1',
            eventType: 'transaction.completed',
            transactionId: 'TE_1',
            url: 'http://127.0.0.1:3000/hook',
            state: 'failed' as const,
            createdAt: '2026-11-21T10:00:00.000Z',
            nextAttemptAt: null,
            attempts: [{ at: '2026-11-21T10:00:01.000Z', httpStatus: 500, error: null, durationMs: 12 }],
          },
        ],
        nextCursor: null,
      }),
    'sandbox:redeliver': () => ok({ queued: true as const }),
    'sandbox:setMaintenance': (input: { on: boolean }) => {
      maintenance = input.on;
      return ok({ maintenance });
    },
    'sandbox:topUp': () => ok({ balance: 1_300_000 }),
  };
}

describe('Window shell', () => {
  it('shows start notices from main and lets the user dismiss them', async () => {
    const api = createFakeApi({
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: false, language: 'system' as const, theme: 'system' as const, notices: [{ code: 'SETTINGS_CORRUPT', message: 'The settings file was unreadable; a copy was kept aside.' }] }),
    });
    const { user } = await renderApp(api, { screen: 'payment' });
    const notices = await screen.findByRole('region', { name: 'Notices' });
    expect(within(notices).getByText(/settings file was unreadable/)).toBeTruthy();
    await user.click(within(notices).getByRole('button', { name: /Dismiss/ }));
    expect(screen.queryByRole('region', { name: 'Notices' })).toBeNull();
  });

  it('explains a refused switch to a live profile in the header', async () => {
    const api = createFakeApi(
      { 'profiles:activate': () => fail('LIVE_REFUSED', 'live profiles need --allow-live') },
      [profile(), profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false })],
    );
    const { user } = await renderApp(api, { screen: 'payment' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Active profile' }), 'acme');
    expect(await screen.findByText(/Live profiles are switched off in this browser session/)).toBeTruthy();
    expect(screen.getByRole('status', { name: 'Environment: sandbox, test money' })).toBeTruthy();
  });

  it('reaches every screen from the keyboard', async () => {
    const api = createFakeApi({ ...sandboxHandlers(), 'transactions:search': () => ok({ rows: [], total: 0, offset: 0, limit: 200 }) });
    const { user } = await renderApp(api, { screen: 'payment' });
    const nav = screen.getByRole('navigation', { name: 'Screens' });
    for (const [button, heading] of [['History', 'History'], ['Lookup', 'Look up a transaction'], ['Sandbox', 'Local sandbox'], ['Settings', 'Settings'], ['New payout', 'New payout']] as const) {
      within(nav).getByRole('button', { name: button }).focus();
      await user.keyboard('{Enter}');
      expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeTruthy();
    }
  });

  it('History shows its empty state and refuses a minimum above the maximum', async () => {
    const api = createFakeApi({ 'transactions:search': () => ok({ rows: [], total: 0, offset: 0, limit: 200 }) });
    const { user } = await renderApp(api, { screen: 'history' });
    expect(await screen.findByText(/No transactions match/)).toBeTruthy();
    await user.type(screen.getByLabelText('Min amount'), '5000');
    await user.type(screen.getByLabelText('Max amount'), '100{Enter}');
    expect(screen.getByText('The minimum amount is above the maximum amount.')).toBeTruthy();
    await user.clear(screen.getByLabelText('Max amount'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'status:failed');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(api.callsOf('transactions:search').at(-1)).toMatchObject({ query: { minAmount: 5000, status: 'failed' }, offset: 0 }));
  });
});

describe('Sandbox panel', () => {
  it('explains SANDBOX_UNAVAILABLE calmly instead of an error box', async () => {
    const api = createFakeApi({ 'sandbox:status': () => fail('SANDBOX_UNAVAILABLE', 'not the local sandbox') });
    await renderApp(api, { screen: 'sandbox' });
    expect(await screen.findByText(/work with the Local sandbox profile only/)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows engine, wallet and deliveries; "use this number" prefills the payment form', async () => {
    const api = createFakeApi(sandboxHandlers());
    const { user } = await renderApp(api, { screen: 'sandbox' });
    expect(await screen.findByText('http://127.0.0.1:4010')).toBeTruthy();
    expect(screen.getByText('1,250,000 XAF')).toBeTruthy();
    expect(screen.getByText(/HTTP 500/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Redeliver transaction.completed for TE_1' }));
    await waitFor(() => expect(api.callsOf('sandbox:redeliver')).toEqual([{ deliveryId: 'd1' }]));
    await user.click(screen.getByRole('switch', { name: /Maintenance mode/ }));
    await waitFor(() => expect(screen.getByRole('switch', { name: /Maintenance mode/ })).toHaveProperty('checked', true));
    await user.type(screen.getByLabelText(/Top-up amount/), '50,000');
    await user.click(screen.getByRole('button', { name: 'Top up' }));
    await waitFor(() => expect(api.callsOf('sandbox:topUp')).toEqual([{ environment: 'sandbox', amount: 50000, reason: 'Top-up from the console' }]));
    await user.click(screen.getByRole('button', { name: 'Use +237650000008 for a payment' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'New payment' })).toBeTruthy();
    expect((screen.getByLabelText('Phone number') as HTMLInputElement).value).toBe('+237650000008');
  });
  it('"Reset clock" brings an advanced sandbox clock back to real time', async () => {
    let offset = 3600;
    const api = createFakeApi({
      ...sandboxHandlers(),
      'sandbox:status': () => ok({ ...engine, clockOffsetSeconds: offset }),
      'sandbox:resetClock': () => {
        const removedSeconds = offset;
        offset = 0;
        return ok({ clockOffsetSeconds: 0, removedSeconds });
      },
    });
    const { user } = await renderApp(api, { screen: 'sandbox' });
    expect(await screen.findByText('Offset now 60 min')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Reset clock' }));
    expect(await screen.findByText('Offset now 0 min')).toBeTruthy();
    expect(api.callsOf('sandbox:resetClock')).toEqual([{}]);
    expect(screen.getByText('Clock back to real time.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Reset clock' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
