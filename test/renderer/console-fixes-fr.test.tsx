/** Issue 9's words in French: the transaction screen, a payout's figures and the live-refused state. */
import { cleanup, render, screen, within } from '@testing-library/react';
import { App } from '../../renderer/src/App';
import { createStores } from '../../renderer/src/stores';
import type { Screen } from '../../renderer/src/stores/ui';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeApi, event, journal, ok, profile } from './fakeApi';
import type { FakeApi } from './fakeApi';
import { screenLoaded } from './render';

/** The app on one screen, ready once the French navigation is on. */
async function renderFrench(api: FakeApi, initial: { screen: Screen; journalId?: string }) {
  render(<App api={api} stores={createStores(api, { screen: initial.screen, journalId: initial.journalId ?? null })} />);
  await screen.findByRole('navigation', { name: 'Écrans' });
  await screenLoaded();
}

afterEach(cleanup);

const french = { version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const };

describe('in French', () => {
  it('a failed payout says why, speaks of the recipient and charges nothing', async () => {
    const api = createFakeApi({
      'app:info': () => ok(french),
      'transactions:get': () =>
        ok({
          transaction: journal({ kind: 'payout', status: 'failed', failedCode: 'PAYER_NOT_FOUND', fee: 250 }),
          timeline: [
            event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null, message: 'payout request sent' }),
            event(2, '2026-11-21T10:00:02.000Z', { type: 'sandbox_status', status: 'failed', message: 'status changed in the local sandbox' }),
          ],
        }),
    });
    await renderFrench(api, { screen: 'timeline', journalId: 'j1' });
    const note = await screen.findByRole('note', { name: 'Échec' });
    expect(note.textContent).toBe('Échec : Le compte mobile money du bénéficiaire est introuvable. (PAYER_NOT_FOUND)');
    expect(screen.getByText('Bénéficiaire')).toBeTruthy();
    expect(screen.getByText('Total prélevé sur le portefeuille')).toBeTruthy();
    expect(screen.getAllByText('Non facturé (le transfert n’a pas abouti)')).toHaveLength(2);
    const list = screen.getByRole('list', { name: 'Historique, le plus récent d’abord' });
    expect(within(list).getAllByRole('listitem')[0]!.textContent).toContain('Statut changé dans le bac à sable local : échouée');
    expect(screen.getByRole('button', { name: 'Vérifier' }).className).toBe('secondary');
  });

  it('a live profile refused by this host is said in French on the marker and the payout form', async () => {
    const api = createFakeApi(
      { 'app:info': () => ok({ ...french, activeProfileId: 'acme', allowLive: false }) },
      [profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false })],
    );
    await renderFrench(api, { screen: 'payout' });
    expect(await screen.findByRole('status', { name: /PRODUCTION, refusée dans cet hôte navigateur/ })).toBeTruthy();
    expect(screen.getByRole('alert', { name: /Cet hôte navigateur refuse les profils de production/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Relire le transfert' })).toHaveProperty('disabled', true);
  });
});
