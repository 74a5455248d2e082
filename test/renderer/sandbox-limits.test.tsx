/**
 * The Sandbox screen (issue 26 item 11): rate limit and webhook chaos controls (en and fr), a
 * delivery chaos dropped or delayed says why, and the wallet balance is read once per wallet move
 * (each GET /v1/balance spends the rate limit).
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxStatus, SandboxWebhookChaos, WebhookDelivery } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

function delivery(id: string, state: WebhookDelivery['state'], chaos: WebhookDelivery['chaos']): WebhookDelivery {
  return { id, eventType: 'transaction.completed', transactionId: `TE_${id}`, url: 'http://127.0.0.1:3000/hook', state, createdAt: '2026-11-21T10:00:00.000Z', nextAttemptAt: null, attempts: [], chaos };
}

function setup() {
  let rateLimit = 0;
  let chaos: SandboxWebhookChaos | null = null;
  const engine: SandboxStatus = { running: true, url: 'http://127.0.0.1:4010', keys: [], maintenance: false, settleMs: 2000, webhookUrl: 'http://127.0.0.1:3000/hook', clockOffsetSeconds: 0, error: null };
  const api = createFakeApi({
    'sandbox:status': () => ok({ ...engine, rateLimitPerKeyPerMinute: rateLimit, chaos }),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': () =>
      ok({
        deliveries: [
          delivery('1', 'failed', [{ effect: 'drop', source: 'chaos', note: 'never sent' }]),
          delivery('2', 'pending', [{ effect: 'late', source: 'chaos', seconds: 30, note: 'late' }]),
          delivery('3', 'failed', []),
        ],
        nextCursor: null,
      }),
    'sandbox:setRateLimit': (input) => {
      rateLimit = input.perMinute;
      return ok({ rateLimitPerKeyPerMinute: rateLimit });
    },
    'sandbox:setChaos': (input) => {
      chaos = { seed: 7, draws: 0, drop: input.drop ? { rate: input.drop } : null, late: input.late ? { rate: input.late, seconds: input.lateSeconds ?? 30 } : null, duplicate: null, out_of_order: null };
      return ok({ chaos });
    },
    'sandbox:clearChaos': () => {
      chaos = null;
      return ok({ chaos: null });
    },
  });
  return api;
}

describe('Sandbox: rate limit and webhook chaos', () => {
  it('sets the rate limit, and says at the field what a bad value is', async () => {
    const api = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const card = (await screen.findByRole('heading', { name: 'Rate limit and webhook chaos' })).closest('.card') as HTMLElement;
    expect(within(card).getByText('Now: no limit.')).toBeTruthy();
    const input = within(card).getByLabelText('Requests a minute per key (0: no limit)');
    await user.clear(input);
    await user.type(input, '2.5');
    await user.click(within(card).getByRole('button', { name: 'Set the rate limit' }));
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(within(card).getByRole('alert').textContent).toBe('Give a whole number of requests a minute, from 0 (no limit) to 1,000,000.');
    expect(api.callsOf('sandbox:setRateLimit')).toEqual([]);
    await user.clear(input);
    await user.type(input, '30');
    await user.click(within(card).getByRole('button', { name: 'Set the rate limit' }));
    await within(card).findByText('Now: 30 requests a minute per key, then 429 RATE_LIMIT_EXCEEDED.');
    expect(api.callsOf('sandbox:setRateLimit')).toEqual([{ perMinute: 30 }]);
  });

  it('turns webhook chaos on with shares in percent, shows it, and turns it off', async () => {
    const api = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const card = (await screen.findByRole('heading', { name: 'Rate limit and webhook chaos' })).closest('.card') as HTMLElement;
    expect(within(card).getByText('Off: every delivery is sent once, on time.')).toBeTruthy();
    await user.click(within(card).getByRole('button', { name: 'Turn chaos on' }));
    expect(within(card).getByLabelText('Dropped (%)').getAttribute('aria-invalid')).toBe('true');
    expect(api.callsOf('sandbox:setChaos')).toEqual([]);
    await user.type(within(card).getByLabelText('Dropped (%)'), '50');
    await user.type(within(card).getByLabelText('Late (%)'), '25');
    await user.click(within(card).getByRole('button', { name: 'Turn chaos on' }));
    await within(card).findByText('On: dropped 50 %, late 25 % by 30 s (seed 7, to replay the same draws).');
    expect(api.callsOf('sandbox:setChaos')).toEqual([{ drop: 0.5, late: 0.25, duplicate: 0, outOfOrder: 0, lateSeconds: 30 }]);
    await user.click(within(card).getByRole('button', { name: 'Turn chaos off' }));
    await within(card).findByText('Off: every delivery is sent once, on time.');
    await act(() => applyLanguage('fr'));
    await waitFor(() => expect(plain(card.textContent)).toContain('Chaos des webhooks (% des envois)'));
    expect(within(card).getByRole('button', { name: 'Activer le chaos' })).toBeTruthy();
  });

  it('says why a delivery failed or waits when chaos dropped or delayed it', async () => {
    const api = setup();
    await renderApp(api, { screen: 'sandbox' });
    const dropped = (await screen.findByText('TE_1')).closest('tr')!;
    expect(dropped.textContent).toContain('Dropped: never sent. (webhook chaos)');
    expect(screen.getByText('TE_2').closest('tr')!.textContent).toContain('Late: held 30 s before sending. (webhook chaos)');
    expect(screen.getByText('TE_3').closest('tr')!.textContent).not.toMatch(/chaos/);
    await act(() => applyLanguage('fr'));
    await waitFor(() => expect(plain(screen.getByText('TE_1').closest('tr')!.textContent)).toContain('Perdu : jamais envoyé. (chaos des webhooks)'));
  });
});

describe('the wallet balance', () => {
  it('is read once at start, not again for a status change, and once for a wallet move', async () => {
    // New payout reads the balance when it opens, and the console reads it when the profile loads: one read serves both.
    const api = createFakeApi();
    const { stores } = await renderApp(api, { screen: 'payout' });
    await waitFor(() => expect(stores.profiles.getState().balance).not.toBeNull());
    await screen.findByLabelText(/Amount/);
    expect(api.callsOf('balance:get')).toHaveLength(1);
    act(() => api.emit('sandbox:event', { kind: 'status', transactionId: 'TE_1', detail: 'processing' }));
    act(() => api.emit('sandbox:event', { kind: 'delivery', transactionId: 'TE_1', detail: 'delivered' }));
    act(() => api.emit('sandbox:event', { kind: 'wallet', transactionId: 'TE_1', detail: 'sandbox 1000' }));
    await waitFor(() => expect(api.callsOf('balance:get')).toHaveLength(2));
  });
});
