/**
 * The first frame (renderer/src/firstFrame.ts, drawn before React by boot.ts) says what React's
 * Overview then draws, word for word, in English and French: the same cards, tables, heading,
 * navigation; React replaces it in one commit, so any difference would flash. And boot.ts hands
 * each call it started to the app once, so main is not asked twice at start.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { summariseGroups, type OverviewGroup, type OverviewResult } from '../../shared/api';
import { App } from '../../renderer/src/App';
import { firstFrame, FIRST_FRAME_NAV } from '../../renderer/src/firstFrame';
import { reusingStartedCalls } from '../../renderer/src/startedCalls';
import { applyLanguage } from '../../renderer/src/i18n';
import { createStores } from '../../renderer/src/stores';
import { createFakeApi, ok } from './fakeApi';

afterEach(async () => {
  cleanup();
  document.body.replaceChildren();
  await applyLanguage('en');
});

const group = (status: OverviewGroup['status'], count: number, amount: number, extra: Partial<OverviewGroup> = {}): OverviewGroup => ({ kind: 'payment', status, failedCode: null, currency: 'XAF', count, amount, ...extra });
const TODAY = [group('completed', 2, 30_000), group('failed', 2, 7000, { failedCode: 'PAYER_NOT_FOUND' }), group('cancelled', 1, 1000, { kind: 'payout' }), group('processing', 1_234, 7_500_000)];

function figures(): OverviewResult {
  return {
    profile: { id: 'local-sandbox', name: 'stored name', environment: 'sandbox' },
    generatedAt: new Date().toISOString(),
    today: summariseGroups(TODAY),
    week: summariseGroups([...TODAY, group('completed', 3, 9000)]),
    days: [],
    stuck: { rows: [], total: 0, olderThanMinutes: 10 },
  };
}

/** Text of each part both frames draw, in order. */
function parts(root: ParentNode): string[] {
  const selectors = ['.brand', '.env-marker', '.profile-switch > span', 'nav.sidebar', '.ov-head h1', '.ov-head p.muted', '.ov-refresh span', '.ov-period', '.ov-stuck', '.ov-balance h2'];
  return selectors.flatMap((selector) => [...root.querySelectorAll(selector)].map((node) => `${selector}: ${node.textContent}`));
}

async function reactParts(data: OverviewResult, language: 'en' | 'fr'): Promise<string[]> {
  const info = { version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language, theme: 'system' as const };
  const api = createFakeApi({ 'overview:get': () => ok(data), 'app:info': () => ok(info) });
  render(<App api={api} stores={createStores(api)} />);
  await screen.findByRole('region', { name: language === 'en' ? 'Today' : 'Aujourd’hui' }, { timeout: 15_000 });
  await waitFor(() => expect(document.querySelector('.brand .muted')).not.toBeNull());
  await waitFor(() => expect(document.querySelector('.ov-stuck')).not.toBeNull());
  return parts(document.body);
}

describe('the first frame', () => {
  for (const language of ['en', 'fr'] as const) {
    it(`draws the shell and the Overview's figures as React then does (${language})`, async () => {
      const data = figures();
      const ours = parts(firstFrame(data, language, '0.1.0'));
      expect(ours.length).toBeGreaterThan(8);
      expect(ours.join('\n')).toMatch(language === 'en' ? /1,239 transactions7,538,000 XAF/ : /1\s239 transactions7\s538\s000\sFCFA/);
      expect(await reactParts(data, language)).toEqual(ours);
    });
  }

  it('says whose journal the figures are, as the Overview does: the team’s on a workspace', () => {
    expect(firstFrame({ ...figures(), journal: 'team' }, 'en').textContent).toContain('from the team’s journal');
    expect(firstFrame({ ...figures(), journal: 'team' }, 'fr').textContent).toContain('d’après le journal de l’équipe');
    expect(firstFrame({ ...figures(), journal: 'desktop' }, 'en').textContent).toContain('from this console’s journal');
  });

  it('lists the screens App.tsx lists, and is not interactive', () => {
    const frame = firstFrame(figures(), 'en');
    expect(FIRST_FRAME_NAV).toHaveLength(12);
    expect([...frame.querySelectorAll('nav button')].map((b) => b.textContent)).toEqual(['Overview', 'New payment', 'New payout', 'Bulk payouts', 'Lookup', 'Transaction', 'History', 'Reconcile', 'Approvals', 'Audit', 'Sandbox', 'Settings']);
    expect(frame.hasAttribute('inert')).toBe(true);
  });

  it('sets a profile name as text, never as markup', () => {
    const data = { ...figures(), profile: { id: 'p2', name: '<img src=x onerror=alert(1)>', environment: 'live' as const } };
    const frame = firstFrame(data, 'en');
    expect(frame.querySelector('img')).toBeNull();
    expect(frame.querySelector('.ov-head p.muted')!.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(frame.querySelector('.env-marker')!.textContent).toBe('LIVE · real money');
  });
});

describe('calls started before the app', () => {
  it('are handed once to the first identical call, then asked afresh', async () => {
    const api = createFakeApi({ 'profiles:list': () => ok({ profiles: [], activeId: 'x' }) });
    const started = new Map([['profiles:list {}', api.invoke('profiles:list', {})]]);
    const app = reusingStartedCalls(api, started);
    expect(api.callsOf('profiles:list')).toHaveLength(1);
    await app.invoke('profiles:list', {});
    expect(api.callsOf('profiles:list')).toHaveLength(1);
    await app.invoke('profiles:list', {});
    expect(api.callsOf('profiles:list')).toHaveLength(2);
  });

  it('a call with another input is not handed the started one', async () => {
    const api = createFakeApi({ 'overview:get': () => ok(figures()) });
    const started = new Map([[`overview:get ${JSON.stringify({ dayBoundaries: ['a'] })}`, api.invoke('overview:get', { dayBoundaries: ['a'] })]]);
    await reusingStartedCalls(api, started).invoke('overview:get', { dayBoundaries: ['b'] });
    expect(api.callsOf('overview:get')).toHaveLength(2);
  });
});
