/**
 * The Sandbox screen with another profile active (the team's sandbox, a service): its controls
 * still drive this desktop's Local sandbox, and it says so, naming the active profile (en, fr);
 * on the Local sandbox profile it says nothing of the kind.
 */
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import type { SandboxStatus } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createFakeApi, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

const engine: SandboxStatus = { running: true, url: 'http://127.0.0.1:4010', keys: [], maintenance: false, settleMs: 2000, webhookUrl: null, clockOffsetSeconds: 0, error: null };
const handlers = {
  'sandbox:status': () => ok({ ...engine, rateLimitPerKeyPerMinute: 0, chaos: null }),
  'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox' as const, balance: 1_000, currency: 'XAF' }], ledger: [] }),
};

it('says its controls are this desktop’s Local sandbox when the team sandbox is the active profile', async () => {
  const team = profile({ id: 'team-sandbox', name: 'Team sandbox', builtIn: false, scope: 'team', keysWithSender: true, hasPaymentSecret: false, hasPayoutSecret: false });
  await renderApp(createFakeApi(handlers, [team, profile()]), { screen: 'sandbox' });
  const note = await screen.findByText(/these controls drive this desktop’s Local sandbox/);
  expect(plain(note.textContent)).toContain('The active profile is “Team sandbox”');
  await act(() => applyLanguage('fr'));
  await waitFor(() => expect(plain(document.querySelector('main')?.textContent)).toContain('Le profil actif est « Team sandbox » : ces commandes pilotent le bac à sable local de ce poste'));
});

it('says nothing of the kind on the Local sandbox profile', async () => {
  await renderApp(createFakeApi(handlers, [profile()]), { screen: 'sandbox' });
  await screen.findByRole('heading', { name: 'Rate limit and webhook chaos' });
  expect(screen.queryByText(/these controls drive this desktop’s Local sandbox/)).toBeNull();
});
