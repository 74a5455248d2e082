/**
 * Webhook deliveries page by cursor (issue 27 item 4), with the request inspector's "load more"
 * control: the first 50, then older pages on request, until the oldest; a push or the 3 s poll
 * asks again for every delivery held, so the person's paging is kept; French words for the control.
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../renderer/src/App';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores } from '../../renderer/src/stores';
import type { SandboxStatus, WebhookDelivery } from '../../shared/api';
import { CHANNEL_INPUTS } from '../../shared/api/channels';
import { createFakeApi, ok } from './fakeApi';
import { renderApp, screenLoaded } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});

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

/** Delivery n (1 = oldest); its transaction TE_n names it on screen. */
function delivery(n: number): WebhookDelivery {
  return {
    id: `d${n}`,
    eventType: 'payment.completed',
    transactionId: `TE_${n}`,
    url: engine.webhookUrl ?? '',
    state: 'delivered',
    createdAt: '2026-11-21T10:00:00.000Z',
    nextAttemptAt: null,
    attempts: [{ at: '2026-11-21T10:00:01.000Z', httpStatus: 200, error: null, durationMs: 12 }],
  };
}

/** An engine holding `count` deliveries, paged newest first as `sandbox:deliveries` answers (cursor = how many came before). */
function setup(count: number, language: 'en' | 'fr' = 'en') {
  let held = count;
  const api = createFakeApi({
    'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language, theme: 'system' as const }),
    'sandbox:status': () => ok(engine),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': (input) => {
      const { cursor, limit = 50 } = CHANNEL_INPUTS['sandbox:deliveries'].parse(input);
      const from = cursor === undefined ? 0 : Number(cursor);
      const newestFirst = Array.from({ length: held }, (_, i) => delivery(held - i));
      const rows = newestFirst.slice(from, from + limit);
      return ok({ deliveries: rows, nextCursor: from + limit < held ? String(from + limit) : null });
    },
  });
  return { api, arrive: () => (held += 1) };
}

const rowsShown = () => screen.queryAllByText(/^TE_\d+$/).map((cell) => cell.textContent);
const older = () => screen.queryByRole('button', { name: 'Show older deliveries' });

describe('Sandbox webhook deliveries paging', () => {
  it('shows the newest 50, then older pages on request, and keeps them on a push', async () => {
    const { api, arrive } = setup(120);
    const { user } = await renderApp(api, { screen: 'sandbox' });
    await waitFor(() => expect(rowsShown()).toHaveLength(50));
    expect(rowsShown()[0]).toBe('TE_120');
    expect(screen.getByText('50 deliveries')).toBeTruthy();

    await user.click(older()!);
    await waitFor(() => expect(rowsShown()).toHaveLength(100));
    expect(rowsShown().slice(49, 51)).toEqual(['TE_71', 'TE_70']);
    expect(api.callsOf('sandbox:deliveries')).toContainEqual({ limit: 50, cursor: '50' });

    // A new delivery is pushed: every delivery held is asked again in one page, the new one on top.
    arrive();
    act(() => api.emit('sandbox:event', { kind: 'delivery' }));
    await waitFor(() => expect(rowsShown()[0]).toBe('TE_121'));
    expect(rowsShown()).toHaveLength(100);
    expect(api.callsOf('sandbox:deliveries')).toContainEqual({ limit: 100 });

    await user.click(older()!);
    await waitFor(() => expect(rowsShown()).toHaveLength(121));
    expect(rowsShown()[120]).toBe('TE_1');
    expect(new Set(rowsShown()).size).toBe(121);
    expect(older()).toBeNull();
  });

  it('has no control when one page holds every delivery, and says it in French', async () => {
    const few = setup(3);
    await renderApp(few.api, { screen: 'sandbox' });
    await waitFor(() => expect(rowsShown()).toHaveLength(3));
    expect(older()).toBeNull();
    cleanup();

    const many = setup(60, 'fr');
    render(<App api={many.api} stores={createStores(many.api, { screen: 'sandbox', journalId: null })} />);
    await screen.findByRole('navigation', { name: 'Écrans' });
    await screenLoaded();
    const user = userEvent.setup();
    const control = await screen.findByRole('button', { name: 'Afficher les livraisons plus anciennes' });
    await user.click(control);
    await waitFor(() => expect(rowsShown()).toHaveLength(60));
    expect(screen.queryByRole('button', { name: 'Afficher les livraisons plus anciennes' })).toBeNull();
  });
});
