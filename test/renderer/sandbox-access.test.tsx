/**
 * The Sandbox screen for developers (issue 16 items 12 and 13): the webhook signing secret and the
 * control API's admin token are fetched only when asked, shown, hidden and copied; the OpenAPI and
 * control URLs are listed; deliveries follow the engine's events without a click; Redeliver says
 * what it did; the sign helper signs again when the sandbox clock moves.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxStatus, SignedExample, WebhookDelivery } from '../../shared/api';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

const WHSEC = 'whsec_c2VjcmV0LXNhbmRib3gtc2lnbmluZy1rZXk=';
const ADMIN = 'adm_0123456789abcdef0123';

function delivery(attempts: number): WebhookDelivery {
  return {
    id: 'd1',
    eventType: 'transaction.completed',
    transactionId: 'TE_1',
    url: 'http://127.0.0.1:3000/hook',
    state: attempts > 1 ? 'delivered' : 'pending',
    createdAt: '2026-11-21T10:00:00.000Z',
    nextAttemptAt: null,
    attempts: Array.from({ length: attempts }, (_, i) => ({ at: `2026-11-21T10:00:0${i + 1}.000Z`, httpStatus: i === attempts - 1 && attempts > 1 ? 200 : 500, error: null, durationMs: 12 })),
  };
}

function setup() {
  let attempts = 1;
  let clockOffsetSeconds = 0;
  const engine: SandboxStatus = {
    running: true,
    url: 'http://127.0.0.1:4010',
    keys: [],
    maintenance: false,
    settleMs: 2000,
    webhookUrl: 'http://127.0.0.1:3000/hook',
    clockOffsetSeconds: 0,
    error: null,
    controlUrl: 'http://127.0.0.1:4010/_sandbox',
    openApiUrl: 'http://127.0.0.1:4010/openapi.json',
  };
  const signed = (timestamp: string): SignedExample => ({
    url: 'http://127.0.0.1:4010/v1/payments',
    method: 'POST',
    keyType: 'payment',
    publicKey: 'pk_sandbox_payment_demo',
    timestamp,
    headers: [{ name: 'X-SVC-Timestamp', value: timestamp }],
    canonical: `pk.${timestamp}.POST./v1/payments.{}`,
    snippets: { curl: `TS=${timestamp}`, node: '', php: '' },
  });
  const api = createFakeApi({
    'sandbox:status': () => ok({ ...engine, clockOffsetSeconds }),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': () => ok({ deliveries: [delivery(attempts)], nextCursor: null }),
    'sandbox:redeliver': () => ok({ queued: true as const }),
    'sandbox:revealSecret': (input) => ok({ value: input.which === 'adminToken' ? ADMIN : WHSEC }),
    'sandbox:advanceClock': (input) => {
      clockOffsetSeconds += input.seconds;
      return ok({ clockOffsetSeconds });
    },
    'sandbox:signRequest': () => ok(signed(String(1_800_000_000 + clockOffsetSeconds))),
  });
  return { api, attempt: () => (attempts += 1) };
}

describe('Sandbox screen for developers', () => {
  it('reveals, hides and copies the signing secret and the admin token only when asked', async () => {
    const { api } = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const signing = await screen.findByRole('group', { name: 'Checking the deliveries' });
    expect(document.body.textContent).not.toContain(WHSEC);
    expect(document.body.textContent).not.toContain(ADMIN);
    expect(api.callsOf('sandbox:revealSecret')).toEqual([]);
    expect(within(signing).getByText(/createHmac\('sha256', Buffer\.from\(process\.env\.WEBHOOK_SECRET\.slice\(6\), 'base64'\)\)/)).toBeTruthy();

    await user.click(within(signing).getByRole('button', { name: 'Reveal: Signing secret' }));
    expect(await within(signing).findByText(WHSEC)).toBeTruthy();
    await user.click(within(signing).getByRole('button', { name: 'Hide: Signing secret' }));
    expect(within(signing).queryByText(WHSEC)).toBeNull();
    await user.click(within(signing).getByRole('button', { name: 'Copy: Signing secret' }));
    expect(await navigator.clipboard.readText()).toBe(WHSEC);
    expect(within(signing).queryByText(WHSEC)).toBeNull();

    const access = screen.getByRole('region', { name: 'For your app: control API and OpenAPI' });
    expect(within(access).getByText('http://127.0.0.1:4010/openapi.json')).toBeTruthy();
    expect(within(access).getByText('http://127.0.0.1:4010/_sandbox')).toBeTruthy();
    await user.click(within(access).getByRole('button', { name: 'Reveal: Admin token' }));
    expect(await within(access).findByText(ADMIN)).toBeTruthy();
    expect(api.callsOf('sandbox:revealSecret')).toEqual([{ which: 'webhookSecret' }, { which: 'adminToken' }]);
  });

  it('updates the deliveries as attempts happen, and says what Redeliver did', async () => {
    const { api, attempt } = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    await screen.findByText(/HTTP 500/);
    expect(screen.queryByText(/HTTP 200/)).toBeNull();
    attempt();
    act(() => api.emit('sandbox:event', { kind: 'delivery', transactionId: 'TE_1', detail: 'delivered' }));
    expect(await screen.findByText(/HTTP 200/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Redeliver transaction.completed for TE_1' }));
    expect(await screen.findByText('transaction.completed for TE_1 queued again with the same webhook-id; its attempts start over and appear below.')).toBeTruthy();
    expect(api.callsOf('sandbox:redeliver')).toEqual([{ deliveryId: 'd1' }]);
  });

  it('signs the example again when the sandbox clock moves', async () => {
    const { api } = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const helper = (await screen.findByRole('heading', { name: 'Sign a request' })).closest('.card') as HTMLElement;
    await user.click(within(helper).getByRole('button', { name: 'Sign' }));
    await within(helper).findByText('TS=1800000000');
    await user.click(screen.getByRole('button', { name: 'Advance clock' }));
    await waitFor(() => expect(within(helper).getByText('TS=1800003600')).toBeTruthy());
    expect(api.callsOf('sandbox:signRequest')).toHaveLength(2);
  });
});
