/**
 * A status the spec does not list (issue 35 item 3, docs/decisions/tolerant-reader.md) is shown as
 * the service said it, and said to be unlisted, in English and in French; it is never styled as
 * the journal's own "pending" (sending), and the entry keeps its Verify as the main action.
 */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../renderer/src/App';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores } from '../../renderer/src/stores';
import type { TimelineEvent } from '../../shared/api';
import { createFakeApi, journal, ok } from './fakeApi';
import { renderApp, screenLoaded } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});

const answered: TimelineEvent = { id: 2, journalId: 'j1', type: 'response', at: '2026-11-26T03:00:01.000Z', status: 'pending', httpStatus: 201, code: null, message: 'payout created', outcome: null };
const detail = () => ({ transaction: journal({ kind: 'payout', status: 'pending' }), timeline: [answered] });

describe('a status the spec does not list', () => {
  it('is shown as itself, said to be unlisted, in its own tone, and the payout can be verified', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const badge = await screen.findByRole('status', { name: 'Status: “pending”, not a status the spec lists' });
    expect(badge.getAttribute('data-status')).toBe('unlisted');
    expect(document.body.textContent).not.toContain('Sending…');
    expect(screen.getByRole('button', { name: 'Verify' }).className).toContain('primary');
  });

  it('an accepted answer not as sent says so above the status', async () => {
    const answerDiffers = { asked: { phoneNumber: '+237650000001', amount: 5000, currency: 'XAF' }, found: { accountNumber: '+2376****0001', amount: 5100, currency: 'XAF' }, differs: ['amount' as const] };
    const api = createFakeApi({ 'transactions:get': () => ok({ transaction: journal({ kind: 'payout', amount: 5100, answerDiffers }), timeline: [] }) });
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const note = await screen.findByTestId('answer-differs');
    expect(note.textContent).toMatch(/^The service’s answer is not what was sent — to \+2376\*\*\*\*0001, .*5,?100.* — this payout asked \(\+237650000001, .*5,?000.*\)/);
  });

  it('in French', async () => {
    const api = createFakeApi({
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const }),
      'transactions:get': () => ok(detail()),
    });
    const stores = createStores(api, { screen: 'timeline', journalId: 'j1' });
    userEvent.setup();
    render(<App api={api} stores={stores} />);
    await screen.findByRole('navigation', { name: 'Écrans' });
    await screenLoaded();
    expect(await screen.findAllByText('« pending », statut que la spécification ne liste pas')).not.toHaveLength(0);
  });
});
