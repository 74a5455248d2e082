/**
 * The Overview screen against a fake API: the console opens on it, it sends the user's local day
 * boundaries, shows the figures (and the charts' numbers as text), refreshes once for a burst of
 * pushes, verifies and opens stuck transactions, and speaks French.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { dayVolume, summariseGroups, type OverviewGroup, type OverviewResult } from '../../shared/api';
import { App } from '../../renderer/src/App';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores } from '../../renderer/src/stores';
import { createOverviewStore, localDayBoundaries } from '../../renderer/src/stores/overview';
import { createFakeApi, deferred, fail, journal, ok } from './fakeApi';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});

const group = (status: OverviewGroup['status'], count: number, amount: number, extra: Partial<OverviewGroup> = {}): OverviewGroup => ({ kind: 'payment', status, failedCode: null, currency: 'XAF', count, amount, ...extra });

function figures(todayGroups: OverviewGroup[], stuck = [journal({ id: 'stuck-1', status: 'processing', amount: 7500, customer: { first_name: 'Jean', last_name: 'Mbarga', email: 'j@example.com' } })]): OverviewResult {
  const bounds = localDayBoundaries(new Date());
  const earlier = [group('completed', 3, 9000)];
  return {
    profile: { id: 'local', name: 'Local sandbox', environment: 'sandbox' },
    generatedAt: new Date().toISOString(),
    today: summariseGroups(todayGroups),
    week: summariseGroups([...todayGroups, ...earlier]),
    days: bounds.slice(0, 7).map((start, i) => dayVolume(start, bounds[i + 1]!, i === 6 ? todayGroups : i === 2 ? earlier : [])),
    stuck: { rows: stuck, total: stuck.length, olderThanMinutes: 10 },
  };
}

const TODAY = [
  group('completed', 2, 30_000),
  group('failed', 2, 7000, { failedCode: 'PAYER_NOT_FOUND' }),
  group('cancelled', 1, 1000, { kind: 'payout' }),
  group('processing', 1, 7500),
];

async function openApp(api: ReturnType<typeof createFakeApi>) {
  const stores = createStores(api);
  const user = userEvent.setup();
  render(<App api={api} stores={stores} />);
  await screen.findByRole('heading', { name: 'Overview', level: 1 });
  return { stores, user };
}

describe('Overview screen', () => {
  it('is the first screen, asks for seven local days, and shows the figures, the failure sentences and the balance', async () => {
    const api = createFakeApi({ 'overview:get': () => ok(figures(TODAY)) });
    const { stores } = await openApp(api);
    expect(stores.ui.getState().screen).toBe('overview');
    // Read once the figures are drawn: the heading can be on screen before the request leaves
    // (a loaded machine made the request later than the heading; CI must not depend on it).
    const today = await screen.findByRole('region', { name: 'Today' });
    const input = api.callsOf('overview:get')[0] as { dayBoundaries: string[] };
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    expect(input.dayBoundaries).toHaveLength(8);
    expect(input.dayBoundaries[6]).toBe(midnight.toISOString());
    expect(new Date(input.dayBoundaries[0]!).getHours()).toBe(0);

    expect(within(today).getByText('6 transactions')).toBeTruthy();
    expect(within(today).getByText('45,500 XAF')).toBeTruthy();
    // 2 completed of 5 finished (completed, failed, cancelled): 40 %.
    expect(within(today).getByText('40%')).toBeTruthy();
    expect(within(today).getByText('2 completed of 5 finished')).toBeTruthy();
    expect(within(today).getByRole('row', { name: 'Payouts 1 1,000 XAF' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Last 7 days' })).getByText('9 transactions')).toBeTruthy();
    const failures = await screen.findByRole('figure', { name: 'Failures by reason' });
    expect(within(failures).getByRole('row', { name: /PAYER_NOT_FOUND The customer’s mobile-money account was not found\. 2 2 7,000 XAF/ })).toBeTruthy();
    // The volume chart's numbers as a table for screen readers: the day of 3 completed, and today.
    const volume = screen.getByRole('table', { name: /Payments and payouts created each day/ });
    const rows = within(volume).getAllByRole('row');
    expect(rows).toHaveLength(8);
    expect(rows[3]!.textContent).toContain('3 · 9,000 XAF');
    expect(rows[7]!.textContent).toMatch(/5 · 44,500 XAF.*1 · 1,000 XAF2$/);
    expect(await within(screen.getByRole('region', { name: 'Wallet balance' })).findByText('100,000 XAF')).toBeTruthy();
  });

  it('says whose journal the figures are: this console’s on a desktop, the team’s on a workspace (English and French)', async () => {
    const api = createFakeApi({ 'overview:get': () => ok({ ...figures(TODAY), journal: 'team' as const }) });
    await openApp(api);
    expect(await screen.findByText(/from the team’s journal/)).toBeTruthy();
    expect(screen.queryByText(/from this console’s journal/)).toBeNull();
    cleanup();
    const french = createFakeApi({
      'overview:get': () => ok({ ...figures(TODAY), journal: 'team' as const }),
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const }),
    });
    render(<App api={french} stores={createStores(french)} />);
    expect(await screen.findByText(/d’après le journal de l’équipe/)).toBeTruthy();
    cleanup();
    await applyLanguage('en');
    const desktop = createFakeApi({ 'overview:get': () => ok({ ...figures(TODAY), journal: 'desktop' as const }) });
    await openApp(desktop);
    expect(await screen.findByText(/from this console’s journal/)).toBeTruthy();
  });

  it('says so when nothing failed and nothing is stuck, and when the service has no balance', async () => {
    const api = createFakeApi({
      'overview:get': () => ok(figures([group('completed', 1, 500)], [])),
      'balance:get': () => ok({ available: false, balance: null, currency: '' }),
    });
    await openApp(api);
    expect(await screen.findByText('No failed transaction in the last 7 days.')).toBeTruthy();
    expect(screen.getByText('Nothing waiting: no transaction has been processing for more than 10 minutes.')).toBeTruthy();
    expect(await screen.findByText('This service does not tell the wallet balance.')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Today' })).getByText('100%')).toBeTruthy();
  });

  it('refreshes once for a burst of transaction pushes', async () => {
    let answer = figures(TODAY);
    const api = createFakeApi({ 'overview:get': () => ok(answer) });
    await openApp(api);
    await screen.findByText('6 transactions');
    answer = figures([...TODAY, group('completed', 1, 2000)]);
    for (let i = 0; i < 5; i += 1) api.emit('transaction:changed', { journalId: `j${i}`, status: 'completed', state: 'known' });
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Today' })).getByText('7 transactions')).toBeTruthy(), { timeout: 5000 });
    expect(api.callsOf('overview:get')).toHaveLength(2);
  });

  it('verifies a stuck transaction from the list, says what it found, and opens its timeline from its row', async () => {
    let answer = figures(TODAY);
    const api = createFakeApi({
      'overview:get': () => ok(answer),
      'transactions:verify': (input) => {
        answer = figures([...TODAY.slice(0, 3), group('completed', 1, 7500)], []);
        return ok({ message: 'verified', transaction: journal({ id: input.journalId, status: 'completed' }) });
      },
      'transactions:get': (input) => ok({ transaction: journal({ id: input.journalId, status: 'completed' }), timeline: [] }),
    });
    const { stores, user } = await openApp(api);
    const stuck = await screen.findByRole('region', { name: /Processing for more than 10 minutes/ });
    await user.click(within(stuck).getByRole('button', { name: 'Verify the payment of 7,500 XAF to Jean Mbarga' }));
    expect(await within(stuck).findByText(/Verified: the status is now Completed\./)).toBeTruthy();
    expect(api.callsOf('transactions:verify')).toEqual([{ journalId: 'stuck-1' }]);
    expect(await within(stuck).findByText(/Nothing waiting/)).toBeTruthy();

    answer = figures(TODAY);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await user.click(await within(stuck).findByRole('button', { name: /Payment of 7,500 XAF to Jean Mbarga, \+237650000008/ }));
    expect(stores.ui.getState()).toMatchObject({ screen: 'timeline', journalId: 'stuck-1' });
  });

  it('verifies a stuck transaction once when Verify is clicked twice in the same tick', async () => {
    const held = deferred<ReturnType<typeof ok<{ message: string; transaction: ReturnType<typeof journal> }>>>();
    const api = createFakeApi({
      'overview:get': () => ok(figures(TODAY)),
      'transactions:verify': () => held.promise,
      'transactions:get': (input) => ok({ transaction: journal({ id: input.journalId, status: 'completed' }), timeline: [] }),
    });
    await openApp(api);
    const stuck = await screen.findByRole('region', { name: /Processing for more than 10 minutes/ });
    const verify = within(stuck).getByRole('button', { name: 'Verify the payment of 7,500 XAF to Jean Mbarga' });
    act(() => {
      fireEvent.click(verify);
      fireEvent.click(verify);
    });
    await waitFor(() => expect(api.callsOf('transactions:verify')).toHaveLength(1));
    held.resolve(ok({ message: 'verified', transaction: journal({ id: 'stuck-1', status: 'completed' }) }));
    expect(await within(stuck).findByText(/Verified: the status is now Completed\./)).toBeTruthy();
    expect(api.callsOf('transactions:verify')).toHaveLength(1);
  });

  it('a screen shown again while its figures are on the way waits for them instead of asking twice; Refresh always asks', async () => {
    const held = deferred<ReturnType<typeof ok<OverviewResult>>>();
    const api = createFakeApi({ 'overview:get': () => held.promise });
    const store = createOverviewStore(api);
    const first = store.getState().load({ reuseInFlight: true });
    store.getState().stop();
    const again = store.getState().load({ reuseInFlight: true });
    expect(api.callsOf('overview:get')).toHaveLength(1);
    held.resolve(ok(figures(TODAY)));
    await Promise.all([first, again]);
    expect(store.getState()).toMatchObject({ status: 'ready', version: 1 });
    api.handlers['overview:get'] = () => ok(figures(TODAY));
    await store.getState().load();
    expect(api.callsOf('overview:get')).toHaveLength(2);
  });

  it('the screen mounting just after the start request answered takes that answer; after leaving, it asks again', async () => {
    const api = createFakeApi({ 'overview:get': () => ok(figures(TODAY)) });
    const store = createOverviewStore(api);
    // main.tsx asks at start, before the screen is mounted; the screen then asks with reuseInFlight.
    await store.getState().load();
    await store.getState().load({ reuseInFlight: true });
    expect(api.callsOf('overview:get')).toHaveLength(1);
    expect(store.getState()).toMatchObject({ status: 'ready', version: 1 });
    store.getState().stop();
    await store.getState().load({ reuseInFlight: true });
    expect(api.callsOf('overview:get')).toHaveLength(2);
  });

  it('draws the figures in a frame of their own: the charts are not in the page when the figures are marked drawn', async () => {
    const api = createFakeApi({ 'overview:get': () => ok(figures(TODAY)) });
    const chartsAtFigures: boolean[] = [];
    const mark = performance.mark.bind(performance);
    performance.mark = ((name: string, options?: PerformanceMarkOptions) => {
      if (name === 'paydesk:overview:figures') chartsAtFigures.push(document.querySelector('.ov-charts') !== null);
      return mark(name, options);
    }) as typeof performance.mark;
    try {
      await openApp(api);
      await screen.findByRole('figure', { name: 'Failures by reason' });
    } finally {
      performance.mark = mark;
    }
    expect(chartsAtFigures[0]).toBe(false);
  });

  it('shows what went wrong when the figures cannot be read', async () => {
    const api = createFakeApi({ 'overview:get': () => fail('LIVE_REFUSED', 'live refused') });
    await openApp(api);
    expect(await screen.findByText('The overview could not be loaded.')).toBeTruthy();
  });

  it('speaks French: words, money in FCFA and the percentage', async () => {
    const api = createFakeApi({
      'overview:get': () => ok(figures(TODAY)),
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const }),
    });
    render(<App api={api} stores={createStores(api)} />);
    await screen.findByRole('heading', { name: 'Aperçu', level: 1 });
    const today = await screen.findByRole('region', { name: 'Aujourd’hui' });
    expect(within(today).getByText('6 transactions')).toBeTruthy();
    expect(within(today).getByText(/^45\s500\sFCFA$/)).toBeTruthy();
    expect(within(today).getByText(/^40\s%$/)).toBeTruthy();
    expect(within(today).getByText('2 réussies sur 5 terminées')).toBeTruthy();
    // A chart's sentence: the charts follow the figures' frame.
    expect(await screen.findByText('Le compte mobile money du client est introuvable.')).toBeTruthy();
  });
});
