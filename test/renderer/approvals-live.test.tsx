/**
 * Notifications that people notice (issue 25 item 6): the count of what waits for this login,
 * beside Approvals in the navigation, is read again when the journal's change events name an
 * approval request (no polling: nothing named, nothing read); the maker's "asked by you" follows a
 * decision made on another desktop; what is new shows as a desktop notification (the Web
 * Notification API, when the host granted it), in the language on screen, without phone numbers.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { App } from '../../renderer/src/App';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, JournalChanged } from '../../shared/api';
import { createStores, wirePushEvents, APPROVALS_LIVE_MS, StoresContext } from '../../renderer/src/stores';
import { ApprovalTrail } from '../../renderer/src/screens/ApprovalTrail';
import { applyLanguage } from '../../renderer/src/i18n';
import { createFakeApi, ok, type FakeApi } from './fakeApi';
import { renderApp } from './render';

const changed = (overrides: Partial<JournalChanged> = {}): JournalChanged => ({ entries: [], batches: [], reconciliations: [], settings: [], approvals: [], audit: [], everything: false, ...overrides });

function request(id: number, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id, subject: 'payout', batchId: null, environment: 'sandbox', currency: 'XAF', externalId: `ext-${id}`, phoneNumber: '+237650000001', amount: 250_000, rows: 1,
    digest: 'd'.repeat(64), approvalsRequired: 1, approvalsGiven: 0, approverRole: 'finance', state: 'awaiting', requestedBy: 'fatou', requestedAt: '2026-11-25T10:00:00Z',
    decidedBy: null, decidedAt: null, remark: null, votes: [], sent: false, profileId: null, profileName: null, accountUrl: null, request: null, spentByEntry: null, ...overrides,
  };
}

/** A workspace's approvals as main answers them: the test changes `forMe` and `mine` between pushes. */
function workspace(lists: { forMe: ApprovalRequest[]; mine: ApprovalRequest[] }): FakeApi {
  return createFakeApi({
    'approvals:status': () => ok({ available: true as const, login: 'amadou', roles: ['finance'] }),
    'approvals:list': (input) => ok({ requests: input.scope === 'forMe' || input.scope === 'mine' ? lists[input.scope] : [] }),
  });
}

/** The Web Notification API as a host that granted it: each notification shown is recorded. */
const shown: { title: string; body: string | undefined }[] = [];
class FakeNotification {
  static permission: NotificationPermission = 'granted';
  static requestPermission = vi.fn(async () => FakeNotification.permission);
  constructor(title: string, options?: NotificationOptions) {
    shown.push({ title, body: options?.body });
  }
}

beforeEach(() => {
  shown.splice(0);
  FakeNotification.permission = 'granted';
  vi.stubGlobal('Notification', FakeNotification);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('approvals on journal:changed', () => {
  it('reads the count again when a push names an approval, and not otherwise', async () => {
    vi.useFakeTimers();
    const lists = { forMe: [] as ApprovalRequest[], mine: [] as ApprovalRequest[] };
    const api = workspace(lists);
    const stores = createStores(api);
    const off = wirePushEvents(api, stores);
    await stores.approvals.getState().load();
    expect(stores.approvals.getState().forMe).toHaveLength(0);
    api.calls.splice(0);

    // Other things changed: nothing is read, however long it stays open.
    api.emit('journal:changed', changed({ entries: ['j1'], batches: ['b1'] }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.callsOf('approvals:list')).toEqual([]);

    lists.forMe = [request(5)];
    api.emit('journal:changed', changed({ approvals: ['5'] }));
    await vi.advanceTimersByTimeAsync(APPROVALS_LIVE_MS);
    expect(api.callsOf('approvals:list')).toEqual([{ scope: 'forMe' }, { scope: 'mine' }, { scope: 'decided' }]);
    expect(stores.approvals.getState().forMe.map((r) => r.id)).toEqual([5]);
    expect(shown).toEqual([{ title: '1 payout waits for your approval', body: 'Open Approvals in Paydesk to approve or reject.' }]);

    // `everything` (the workspace connection came back) reads it again too.
    api.emit('journal:changed', changed({ everything: true }));
    await vi.advanceTimersByTimeAsync(APPROVALS_LIVE_MS);
    expect(api.callsOf('approvals:list')).toHaveLength(6);
    // Nothing new: no second notification.
    expect(shown).toHaveLength(1);
    off();
  });

  it('tells the maker at once that another desktop approved or rejected, with who and how much, never the phone', async () => {
    vi.useFakeTimers();
    const lists = { forMe: [] as ApprovalRequest[], mine: [request(7), request(8, { subject: 'batch', batchId: 'b1', externalId: null, phoneNumber: null, amount: 900_000, rows: 3 })] };
    const api = workspace(lists);
    const stores = createStores(api);
    const off = wirePushEvents(api, stores);
    await stores.approvals.getState().load();
    lists.mine = [request(7, { state: 'approved', decidedBy: 'awa', approvalsGiven: 1 }), { ...lists.mine[1]!, state: 'rejected', decidedBy: 'paul' }];
    api.emit('journal:changed', changed({ approvals: ['7', '8'] }));
    await vi.advanceTimersByTimeAsync(APPROVALS_LIVE_MS);
    expect(stores.approvals.getState().mine.map((r) => r.state)).toEqual(['approved', 'rejected']);
    expect(shown.map((n) => n.title)).toEqual(['Your payout was approved by awa', 'Your batch was rejected by paul']);
    expect(shown[0]!.body).toMatch(/^Amount: 250,000\sXAF$/);
    expect(JSON.stringify(shown)).not.toContain('+237');
    off();
  });

  it('shows nothing on the desktop without the permission (the count still moves)', async () => {
    vi.useFakeTimers();
    FakeNotification.permission = 'default';
    const lists = { forMe: [] as ApprovalRequest[], mine: [] as ApprovalRequest[] };
    const api = workspace(lists);
    const stores = createStores(api);
    const off = wirePushEvents(api, stores);
    await stores.approvals.getState().load();
    lists.forMe = [request(5), request(6)];
    api.emit('journal:changed', changed({ approvals: ['5', '6'] }));
    await vi.advanceTimersByTimeAsync(APPROVALS_LIVE_MS);
    expect(stores.approvals.getState().forMe).toHaveLength(2);
    expect(shown).toEqual([]);
    expect(FakeNotification.requestPermission).not.toHaveBeenCalled();
    off();
  });
});

describe('the navigation badge', () => {
  it('shows how many wait for this login and follows the pushes', async () => {
    const lists = { forMe: [request(5)], mine: [] as ApprovalRequest[] };
    const api = workspace(lists);
    await renderApp(api, { screen: 'overview' });
    const nav = screen.getByRole('navigation', { name: 'Screens' });
    const item = within(nav).getByRole('button', { name: /^Approvals/ });
    await vi.waitFor(() => expect(item.textContent).toBe('Approvals1, 1 request waits for your approval'));

    lists.forMe = [request(5), request(6), request(9)];
    act(() => api.emit('journal:changed', changed({ approvals: ['9'] })));
    await vi.waitFor(() => expect(within(nav).getByRole('button', { name: /^Approvals/ }).textContent).toBe('Approvals3, 3 requests wait for your approval'));
    expect(screen.getByTestId('approvals-badge').getAttribute('aria-hidden')).toBe('true');

    lists.forMe = [];
    act(() => api.emit('journal:changed', changed({ approvals: ['5', '6', '9'] })));
    await vi.waitFor(() => expect(screen.queryByTestId('approvals-badge')).toBeNull());
  });

  it('says it in French', async () => {
    try {
      const api = workspace({ forMe: [request(5), request(6)], mine: [] });
      api.handlers['app:info'] = () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const });
      render(<App api={api} stores={createStores(api, { screen: 'overview', journalId: null })} />);
      await vi.waitFor(() => expect(screen.getByRole('navigation').textContent).toContain('Approbations2, 2 demandes attendent votre approbation'));
    } finally {
      await applyLanguage('en');
    }
  });
});

describe('the browser host’s permission', () => {
  it('is asked once, from a click on the Approvals screen; once granted the button goes', async () => {
    FakeNotification.permission = 'default';
    FakeNotification.requestPermission.mockImplementationOnce(async () => (FakeNotification.permission = 'granted'));
    const { user } = await renderApp(workspace({ forMe: [], mine: [] }), { screen: 'approvals' });
    const turnOn = await screen.findByRole('button', { name: 'Turn on desktop notifications' });
    expect(FakeNotification.requestPermission).not.toHaveBeenCalled();
    await user.click(turnOn);
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: 'Turn on desktop notifications' })).toBeNull());
    expect(screen.queryByText(/blocked for this page/)).toBeNull();
  });

  it('says the count still shows when the host refuses; nothing to ask where it is already granted', async () => {
    FakeNotification.permission = 'default';
    FakeNotification.requestPermission.mockImplementationOnce(async () => (FakeNotification.permission = 'denied'));
    const { user } = await renderApp(workspace({ forMe: [], mine: [] }), { screen: 'approvals' });
    await user.click(await screen.findByRole('button', { name: 'Turn on desktop notifications' }));
    expect(await screen.findByText(/Desktop notifications are blocked for this page/)).toBeTruthy();
    cleanup();
    FakeNotification.permission = 'granted';
    await renderApp(workspace({ forMe: [], mine: [] }), { screen: 'approvals' });
    await screen.findByRole('heading', { name: /^Waiting for you/ });
    expect(screen.queryByRole('button', { name: 'Turn on desktop notifications' })).toBeNull();
  });
});

describe('an open payout’s or batch’s approval trail', () => {
  it('reads again when a push names an approval: the maker sees the decision on the page they have open', async () => {
    const lists = { forMe: [] as ApprovalRequest[], mine: [request(7)] };
    const api = workspace(lists);
    api.handlers['approvals:about'] = () => ok({ requests: lists.mine });
    const stores = createStores(api);
    const off = wirePushEvents(api, stores);
    render(
      <StoresContext.Provider value={stores}>
        <ApprovalTrail subject={{ environment: 'sandbox', externalId: 'ext-7' }} />
      </StoresContext.Provider>,
    );
    // The state, and the payout's step (the trail shows every step, the current one marked).
    expect((await screen.findAllByText('Awaiting approval')).length).toBeGreaterThan(0);
    expect(document.querySelector('[aria-current="step"]')?.textContent).toBe('Awaiting approval');
    lists.mine = [request(7, { state: 'approved', decidedBy: 'awa', approvalsGiven: 1, votes: [{ voter: 'awa', vote: 'approve', remark: null, at: '2026-11-25T10:05:00Z' }] })];
    act(() => api.emit('journal:changed', changed({ approvals: ['7'] })));
    await waitFor(() => expect(document.querySelector('[aria-current="step"]')?.textContent).toBe('Approved, ready to send'));
    expect(screen.getByText(/^awa approved on/)).toBeTruthy();
    expect(api.callsOf('approvals:about')).toHaveLength(2);
    off();
  });
});
