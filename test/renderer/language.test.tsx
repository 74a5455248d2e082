import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

describe('Language', () => {
  it('switches the console to French from Settings, and remembers the choice in main', async () => {
    let stored: 'system' | 'en' | 'fr' = 'system';
    const api = createFakeApi({
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: stored, theme: 'system' as const }),
      'preferences:set': (input) => {
        stored = input.language ?? stored;
        return ok({ language: stored });
      },
    });
    const { user } = await renderApp(api, { screen: 'settings' });
    await user.selectOptions(screen.getByLabelText('Language'), 'fr');
    const nav = await screen.findByRole('navigation', { name: 'Écrans' });
    expect(within(nav).getByRole('button', { name: 'Nouveau paiement' })).toBeTruthy();
    expect(stored).toBe('fr');
    expect(api.calls.some((call) => call.channel === 'preferences:set')).toBe(true);
    expect(screen.getByRole('status', { name: /Environnement : bac à sable/ })).toBeTruthy();
    expect(document.documentElement.lang).toBe('fr');

    await user.selectOptions(screen.getByLabelText('Langue'), 'en');
    expect(await screen.findByRole('navigation', { name: 'Screens' })).toBeTruthy();
  });
});
