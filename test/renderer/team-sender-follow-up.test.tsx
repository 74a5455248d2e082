/**
 * An entry of a profile whose keys are with the team sender: only the sender reads the service for
 * it and main refuses a desktop's Verify and Look up before any read
 * (docs/decisions/sender-records-its-profiles-answers.md). The transaction page, the outcome-unknown
 * flow, Overview's stuck list and the Look up screen offer no button that always refuses: they say
 * the sender follows it up, in English and French. An entry of a profile the desktops hold keeps them.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { OverviewResult, TransactionDetail } from '../../shared/api';
import { dayVolume, summariseGroups } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { localDayBoundaries } from '../../renderer/src/stores/overview';
import { createFakeApi, event, journal, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(async () => {
  cleanup();
  await act(() => applyLanguage('en'));
});

const FOLLOWED = 'Followed up by the team sender: its status updates here by itself.';
const SUIVIE = 'Suivie par l’expéditeur de l’équipe : son statut se met à jour ici tout seul.';
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');
/** The fake's one profile (`local`), a team profile whose keys are with the sender or with the desktops. */
const teamProfile = (keysWithSender: boolean) => [profile({ builtIn: false, scope: 'team', ...(keysWithSender ? { keysWithSender: true as const } : {}) })];

const known = (): TransactionDetail => ({
  transaction: journal({ kind: 'payout', status: 'processing', fee: null, netAmount: null, transaction: null }),
  timeline: [event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null })],
});
const unknown = (): TransactionDetail => ({
  transaction: journal({ kind: 'payout', state: 'outcome_unknown', status: null, transactionId: null }),
  timeline: [
    event(1, '2026-11-21T10:00:00.000Z', { type: 'request_sent', status: null }),
    event(2, '2026-11-21T10:00:30.000Z', { type: 'transport_failure', status: null, outcome: 'unknown' }),
  ],
});

describe('the transaction page', () => {
  it('of a sender-held payout: no Verify, the line that the sender follows it up, in English and French', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(known()) }, teamProfile(true));
    const { container } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    await screen.findByText(FOLLOWED);
    expect(screen.queryByRole('button', { name: 'Verify' })).toBeNull();
    // Nothing points at a Verify it does not offer: the fee not known yet is just that.
    expect(screen.queryByText(/Verify asks the service/)).toBeNull();
    expect(screen.getAllByText('Not known yet').length).toBeGreaterThan(0);
    await act(() => applyLanguage('fr'));
    await waitFor(() => expect(plain(container.textContent)).toContain(SUIVIE));
    expect(screen.queryByRole('button', { name: 'Vérifier' })).toBeNull();
  });

  it('of a payout the desktops hold: Verify, and no sender line', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(known()) }, teamProfile(false));
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    expect(await screen.findByRole('button', { name: 'Verify' })).toHaveProperty('disabled', false);
    expect(screen.queryByText(FOLLOWED)).toBeNull();
    expect(screen.getAllByText('Not known yet (Verify asks the service)').length).toBeGreaterThan(0);
  });

  it('of a sender-held payout whose outcome is unknown: no Look it up, the sender line in its place', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(unknown()) }, teamProfile(true));
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const region = await screen.findByRole('region', { name: 'Outcome unknown' });
    await within(region).findByText(FOLLOWED);
    expect(within(region).queryByRole('button', { name: 'Look it up' })).toBeNull();
    expect(within(region).queryByRole('button', { name: /Send again/ })).toBeNull();
  });

  it('of an outcome-unknown payout the desktops hold: Look it up, and no sender line', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(unknown()) }, teamProfile(false));
    await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const region = await screen.findByRole('region', { name: 'Outcome unknown' });
    expect(within(region).getByRole('button', { name: 'Look it up' })).toBeTruthy();
    expect(screen.queryByText(FOLLOWED)).toBeNull();
  });
});

function stuckFigures(): OverviewResult {
  const bounds = localDayBoundaries(new Date());
  const stuck = [journal({ id: 'stuck-1', kind: 'payout', status: 'processing', amount: 7500, customer: { first_name: 'Jean', last_name: 'Mbarga', email: 'j@example.com' } })];
  return {
    profile: { id: 'local', name: 'Team', environment: 'sandbox' },
    generatedAt: new Date().toISOString(),
    today: summariseGroups([]),
    week: summariseGroups([]),
    days: bounds.slice(0, 7).map((start, i) => dayVolume(start, bounds[i + 1]!, [])),
    stuck: { rows: stuck, total: 1, olderThanMinutes: 10 },
  };
}

describe('Overview’s stuck list', () => {
  it.each<[boolean, string]>([
    [true, 'says the sender follows the row up, with no Verify'],
    [false, 'offers Verify on the row, with no sender line'],
  ])('sender-held %s: %s', async (keysWithSender) => {
    const api = createFakeApi({ 'overview:get': () => ok(stuckFigures()) }, teamProfile(keysWithSender));
    await renderApp(api, { screen: 'overview' });
    const stuck = await screen.findByRole('region', { name: /Processing for more than 10 minutes/ });
    const verify = { name: 'Verify the payout of 7,500 XAF to Jean Mbarga' };
    if (keysWithSender) {
      await within(stuck).findByText(FOLLOWED);
      expect(within(stuck).queryByRole('button', verify)).toBeNull();
    } else {
      await within(stuck).findByRole('button', verify);
      expect(within(stuck).queryByText(FOLLOWED)).toBeNull();
    }
  });
});

describe('the Look up screen', () => {
  it('opens a sender-held payout found in the team’s journal saying the sender sent or recorded it, with no Verify', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(known()) }, teamProfile(true));
    await renderApp(api, { screen: 'timeline', journalId: 'j1', params: { foundIn: 'team_journal' } });
    await screen.findByText('Found in the team’s journal: the team sender, which holds this profile’s keys, sent or recorded it.');
    expect(screen.queryByText(/Verify asks the service for its latest status/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Verify' })).toBeNull();
  });

  const NOTE = /Look up finds what is in the team’s journal and does not ask the service/;
  it('on a sender-held profile says it reads the team’s journal only', async () => {
    await renderApp(createFakeApi({}, teamProfile(true)), { screen: 'lookup' });
    await screen.findByText(NOTE);
  });

  it('on a profile the desktops hold says nothing of a sender', async () => {
    await renderApp(createFakeApi({}, teamProfile(false)), { screen: 'lookup' });
    await screen.findByRole('button', { name: 'Look up' });
    expect(screen.queryByText(NOTE)).toBeNull();
  });
});
