/**
 * "Help send from this desktop" (docs/decisions/help-send-from-this-desktop.md): the batch screen
 * offers it only on a team workspace, to a login that may send, on a batch another desktop is
 * sending (`sending`, not sent here, not stopping); pressing it calls `batches:join` and the screen
 * then says "Sending from this desktop." (English and French).
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchState, WorkspaceStatus } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, deferred, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(async () => {
  layout.remove();
  await act(() => applyLanguage('en'));
});

const CSV = [
  'phone_number,amount,first_name,last_name,email,description',
  '+237650000001,10000,Awa,Nkemdirim,awa@example.com,Commission',
  '+237650000002,20000,Jean,Mbarga,jean@example.com,Advance',
].join('\n');

const place = { host: 'db.example.com', port: 5432, database: 'paydesk_team', user: 'samuel', tls: 'verify' as const, hasCa: true };
const workspace = (roles: ('finance' | 'support' | 'admin')[]): WorkspaceStatus => ({ store: 'workspace', place, state: 'open', who: { login: 'samuel', roles }, schemaVersion: 33 });
const FINANCE = workspace(['finance']);

const JOIN = 'Help send from this desktop';
const HINT = 'Another desktop of the team is sending this batch. This desktop can take rows too: each row is still sent once.';
const HERE = 'Sending from this desktop.';

/** A batch in `state` (another desktop's, unless `sendingHere`), opened on the Bulk payouts screen of a console on `status`. */
async function openBatch(status: WorkspaceStatus, state: BatchState, options: { sendingHere?: boolean } = {}) {
  const backend = createBatchBackend({});
  await backend.handlers['batches:import']!({ fileName: 'october.csv', text: CSV } as never);
  backend.update('b1', state);
  if (options.sendingHere) backend.batches.set('b1', { ...backend.batches.get('b1')!, sendingHere: true });
  const api = createFakeApi({ ...backend.handlers, 'workspace:status': () => ok(status) }, [profile()]);
  const view = await renderApp(api, { screen: 'batches', params: { batch: 'b1' } });
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  // The status is read once at start: wait until the workspace bar knows where the console records.
  await act(async () => {
    await view.stores.workspace.getState().load();
  });
  return { ...view, api, backend };
}

const joinButton = () => screen.queryByRole('button', { name: JOIN });

describe('Help send from this desktop', () => {
  it('shows on a workspace to finance on a batch another desktop sends; pressing it joins and says so', async () => {
    const { user, api } = await openBatch(FINANCE, 'sending');
    expect(await screen.findByRole('button', { name: JOIN })).toBeTruthy();
    expect(screen.getByText(HINT)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(screen.queryByText(HERE)).toBeNull();

    await user.click(joinButton()!);
    expect(await screen.findByText(HERE)).toBeTruthy();
    expect(api.callsOf('batches:join')).toEqual([{ batchId: 'b1' }]);
    expect(joinButton()).toBeNull();
    expect(screen.queryByText(HINT)).toBeNull();

    // After a rate-limit wait's sentence, on the same line: a space between the two.
    const until = new Date(Date.now() + 30_000).toISOString();
    act(() => api.emit('batch:progress', { batchId: 'b1', mode: 'send', state: 'sending', sent: 1, accepted: 1, failed: 0, unknown: 0, remaining: 1, ratePerSecond: 1, etaSeconds: 1, final: 0, waitingUntil: until }));
    await screen.findByText(/^Waiting for the service’s rate limit/);
    const line = screen.getByText(HERE).parentElement!.textContent!;
    expect(line).toMatch(/\S Sending from this desktop\.$/);
  });

  it('is not offered on this desktop’s own journal (a batch there is sent here or interrupted)', async () => {
    await openBatch({ store: 'desktop' }, 'sending');
    await screen.findByRole('button', { name: 'Pause' });
    expect(joinButton()).toBeNull();
    expect(screen.queryByText(HINT)).toBeNull();
    expect(screen.queryByText(HERE)).toBeNull();
  });

  it('is not offered to a login that may not send (support, admin)', async () => {
    await openBatch(workspace(['support', 'admin']), 'sending');
    await screen.findByRole('button', { name: 'Pause' });
    expect(joinButton()).toBeNull();
    expect(screen.queryByText(HINT)).toBeNull();
  });

  it('is not offered when this desktop already sends the batch, which says so', async () => {
    await openBatch(FINANCE, 'sending', { sendingHere: true });
    expect(await screen.findByText(HERE)).toBeTruthy();
    expect(joinButton()).toBeNull();
  });

  it('is not offered on a paused, done or cancelled batch', async () => {
    for (const state of ['paused', 'done', 'cancelled'] as const) {
      await openBatch(FINANCE, state);
      await screen.findByRole('heading', { level: 2, name: state === 'paused' ? 'Sending' : 'Sent' });
      expect(joinButton(), state).toBeNull();
      expect(screen.queryByText(HINT), state).toBeNull();
      cleanup();
    }
  });

  it('is withdrawn at once when Pause is pressed here, while the batch is still sending (stopping)', async () => {
    const { user, api } = await openBatch(FINANCE, 'sending');
    await screen.findByRole('button', { name: JOIN });
    // Main holds the answer while the rows in flight settle: the batch is still `sending`, and stopping.
    const held = deferred<void>();
    const pauseHandler = api.handlers['batches:pause']!;
    api.handlers['batches:pause'] = async (input) => {
      await held.promise;
      return pauseHandler(input);
    };
    await user.click(screen.getByRole('button', { name: 'Pause' }));
    await screen.findByText('Pausing… nothing more is sent; waiting for the rows already sent to be answered.');
    expect(joinButton()).toBeNull();
    expect(screen.queryByText(HINT)).toBeNull();
    held.resolve();
    await screen.findByText('Paused. Payouts already sent keep settling.');
    expect(joinButton()).toBeNull();
  });

  it('in French: "Aider à envoyer depuis ce poste", then "Envoi depuis ce poste."', async () => {
    const { user, api } = await openBatch(FINANCE, 'sending');
    await act(() => applyLanguage('fr'));
    await user.click(await screen.findByRole('button', { name: 'Aider à envoyer depuis ce poste' }));
    expect(await screen.findByText('Envoi depuis ce poste.')).toBeTruthy();
    expect(api.callsOf('batches:join')).toEqual([{ batchId: 'b1' }]);
    expect(screen.queryByRole('button', { name: 'Aider à envoyer depuis ce poste' })).toBeNull();
    await act(() => applyLanguage('en'));
  });
});
