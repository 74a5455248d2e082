/** The screens this branch translated, rendered in French against a fake API: no English sentence left. */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../renderer/src/App';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores } from '../../renderer/src/stores';
import type { Screen } from '../../renderer/src/stores/ui';
import { createFakeApi, fail, ok, type FakeApi } from './fakeApi';
import { screenLoaded } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});

/** Spaces as a person reads them (French numbers group with narrow no-break spaces). */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

function frenchApi(handlers: Parameters<typeof createFakeApi>[0] = {}): FakeApi {
  return createFakeApi({
    'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const }),
    ...handlers,
  });
}

async function renderFrench(api: FakeApi, screenName: Screen) {
  const stores = createStores(api, { screen: screenName, journalId: null });
  const user = userEvent.setup();
  render(<App api={api} stores={stores} />);
  await screen.findByRole('navigation', { name: 'Écrans' });
  await screenLoaded();
  return { user };
}

describe('in French', () => {
  it('shows the start notices from their codes and parameters, not main’s English sentence', async () => {
    const api = frenchApi({
      'app:info': () =>
        ok({
          version: '0.1.0',
          transport: 'browser' as const,
          activeProfileId: 'local',
          allowLive: true,
          language: 'fr' as const,
          theme: 'system' as const,
          notices: [
            { code: 'SETTINGS_CORRUPT', message: 'The settings file could not be read: bad JSON.', params: { backupPath: '/data/settings.json.corrupt-1' } as Record<string, string | number> },
            { code: 'OUTCOME_UNKNOWN', message: '2 request(s) were being sent when Paydesk last stopped.', params: { count: 2 } as Record<string, string | number> },
          ],
        }),
    });
    await renderFrench(api, 'payment');
    const notices = await screen.findByRole('region', { name: 'Avis' });
    expect(plain(notices.textContent)).toContain('il a été mis de côté sous /data/settings.json.corrupt-1');
    expect(plain(notices.textContent)).toContain('2 requêtes étaient en cours d’envoi');
    expect(notices.textContent).not.toMatch(/settings file|request\(s\)/);
    expect(within(notices).getAllByRole('button', { name: /^Masquer : / })).toHaveLength(2);
  });

  it('titles a failure of an unknown code in French and keeps the service’s English words as details', async () => {
    const { user } = await renderFrench(frenchApi({ 'payments:create': () => fail('SOMETHING_NEW', 'The gateway said no.') }), 'payment');
    // By id: the form's labels belong to another branch's catalogue.
    const field = (id: string) => document.getElementById(`payment-${id}`) as HTMLInputElement;
    await screen.findByRole('heading', { level: 1, name: 'Nouveau paiement' });
    for (const [id, value] of [['amount', '5000'], ['phone', '+237650000001'], ['first', 'Ada'], ['last', 'Ndiaye'], ['email', 'ada@example.com']] as const) await user.type(field(id), value);
    await user.click(screen.getByRole('button', { name: 'Demander le paiement' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Un problème est survenu.')).toBeTruthy();
    expect(plain(alert.textContent)).toContain('Message d’origine (en anglais) : The gateway said no.');
    const quote = within(alert).getByText('The gateway said no.');
    expect(quote.tagName).toBe('Q');
    expect(quote.getAttribute('lang')).toBe('en');
    expect(within(alert).getByText('Code SOMETHING_NEW')).toBeTruthy();
  });

  it('translates the payment form’s heading, button and field errors', async () => {
    const { user } = await renderFrench(frenchApi(), 'payment');
    expect(await screen.findByRole('heading', { level: 1, name: 'Nouveau paiement' })).toBeTruthy();
    expect(plain(screen.getByText(/^Demandez à un client de payer/).textContent)).toContain('(profil Bac à sable local, bac à sable)');
    await user.click(screen.getByRole('button', { name: 'Demander le paiement' }));
    const errors = screen.getAllByRole('alert').map((element) => element.textContent ?? '');
    expect(errors).toContain('est obligatoire');
    expect(errors.join(' ')).not.toMatch(/\b(is required|must)\b/);
  });

  it('shows the sandbox panel in French with French money, statuses and delivery states', async () => {
    const api = frenchApi({
      'sandbox:status': () => ok({ running: true, url: 'http://127.0.0.1:4010', keys: [{ environment: 'sandbox' as const, type: 'payout' as const, publicKey: 'pk_sandbox_payout_demo', secretKey: 'sk_sandbox_payout_demo' }], maintenance: false, settleMs: 2000, webhookUrl: null, clockOffsetSeconds: 0, error: null }),
      'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_250_000, currency: 'XAF' }], ledger: [] }),
      'sandbox:deliveries': () =>
        ok({ deliveries: [{ id: 'd1', eventType: 'payment.completed', transactionId: 'TE_1', url: 'http://127.0.0.1:3000/hook', state: 'failed' as const, createdAt: '2026-11-21T10:00:00.000Z', nextAttemptAt: null, attempts: [{ at: '2026-11-21T10:00:01.000Z', httpStatus: 500, error: null, durationMs: 1200 }] }], nextCursor: null }),
    });
    const { user } = await renderFrench(api, 'sandbox');
    expect(await screen.findByRole('heading', { level: 1, name: 'Bac à sable local' })).toBeTruthy();
    await screen.findByText('En marche');
    expect(screen.getByText((_, element) => element?.tagName === 'STRONG' && plain(element.textContent) === '1 250 000 FCFA')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copier la clé publique de transfert (bac à sable)' })).toBeTruthy();
    expect(screen.getAllByText('Échouée').length).toBeGreaterThan(0);
    expect(screen.getByText('échouée')).toBeTruthy();
    expect(screen.getByText('1 livraison')).toBeTruthy();
    expect(plain(screen.getByText(/HTTP 500/).textContent)).toContain('(1 200 ms)');
    expect(screen.getByRole('button', { name: 'Renvoyer payment.completed pour TE_1' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Utiliser le +237650000002 pour un transfert' })).toBeTruthy();
    await user.type(screen.getByLabelText('Montant à ajouter (FCFA)'), '12.5');
    await user.click(screen.getByRole('button', { name: 'Approvisionner' }));
    expect(plain(screen.getByRole('alert').textContent)).toBe('Montant : doit être un nombre entier de FCFA (pas de sous-unité).');
  });
});
