/**
 * Issue 16 items 9 and 11: the Overview follows a profile switch at once and says in words why the
 * balance is missing; payout failures read as payout sentences (Overview, rehearsal); a retry batch
 * has its own name.
 */
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { dayVolume, summariseGroups, type OverviewGroup, type OverviewResult } from '../../shared/api';
import { retryName } from '../../electron/console/handlers/batches';
import { localDayBoundaries } from '../../renderer/src/stores/overview';
import { createFakeApi, deferred, fail, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

const group = (extra: Partial<OverviewGroup>): OverviewGroup => ({ kind: 'payment', status: 'completed', failedCode: null, currency: 'XAF', count: 1, amount: 1000, ...extra });

function figures(name: string, id: string, groups: OverviewGroup[]): OverviewResult {
  const bounds = localDayBoundaries(new Date());
  return {
    profile: { id, name, environment: 'sandbox' },
    generatedAt: new Date().toISOString(),
    today: summariseGroups(groups),
    week: summariseGroups(groups),
    days: bounds.slice(0, 7).map((start, i) => dayVolume(start, bounds[i + 1]!, i === 6 ? groups : [])),
    stuck: { rows: [], total: 0, olderThanMinutes: 10 },
  };
}

describe('Overview', () => {
  it('forgets the previous profile’s figures at once on a switch, and shows the new one’s', async () => {
    const acme = profile({ id: 'acme', name: 'Acme test', builtIn: false });
    let active = 'local';
    const acmeAnswer = deferred<ReturnType<typeof ok<OverviewResult>>>();
    const api = createFakeApi(
      {
        'profiles:list': () => ok({ profiles: [profile(), acme], activeId: active }),
        'overview:get': () => (active === 'local' ? ok(figures('Local sandbox', 'local', [group({})])) : acmeAnswer.promise),
      },
      [profile(), acme],
    );
    await renderApp(api, { screen: 'overview' });
    expect(await screen.findByText(/Local sandbox/, { selector: '.ov-head p' })).toBeTruthy();
    active = 'acme';
    act(() => api.emit('profiles:changed', { activeId: 'acme' } as never));
    // Before Acme's figures arrive, nothing of the local sandbox's stands under the new profile.
    await screen.findByRole('heading', { name: 'Overview', level: 1 });
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(document.querySelector('.ov-head p')?.textContent ?? '').not.toMatch(/Local sandbox/);
    acmeAnswer.resolve(ok(figures('Acme test', 'acme', [group({})])));
    expect(await screen.findByText(/Acme test/, { selector: '.ov-head p' })).toBeTruthy();
  });

  it('says in words why a live profile has no balance in this host (no LIVE_REFUSED)', async () => {
    const live = profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false });
    const api = createFakeApi(
      {
        'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'acme', allowLive: false, language: 'system' as const, theme: 'system' as const }),
        'balance:get': () => fail('LIVE_REFUSED', 'refused'),
        'overview:get': () => ok(figures('Acme live', 'acme', [])),
      },
      [live, profile()],
    );
    await renderApp(api, { screen: 'overview' });
    const card = (await screen.findByRole('heading', { name: 'Wallet balance' })).closest('section')!;
    expect(await within(card).findByText('No balance: this browser host does not connect to live profiles.')).toBeTruthy();
    expect(document.body.textContent).not.toContain('LIVE_REFUSED');
  });

  it('gives a failed payout the payout sentence and a failed payment the payer’s', async () => {
    const api = createFakeApi({
      'overview:get': () =>
        ok(figures('Local sandbox', 'local', [group({ kind: 'payout', status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS' }), group({ kind: 'payment', status: 'failed', failedCode: 'PAYER_NOT_FOUND' })])),
    });
    await renderApp(api, { screen: 'overview' });
    expect(await screen.findAllByText('The mobile-money operator could not credit the recipient (not enough funds on its side).')).not.toHaveLength(0);
    expect(screen.queryByText(/customer did not have enough money/i)).toBeNull();
  });
});

describe('retry batches', () => {
  it('have their own name, numbered from the original', () => {
    expect(retryName('october.csv')).toBe('october (retry 1).csv');
    expect(retryName('october (retry 1).csv')).toBe('october (retry 2).csv');
    expect(retryName('payouts')).toBe('payouts (retry 1)');
  });
});
