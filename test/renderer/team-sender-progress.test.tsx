/**
 * A batch of a profile whose keys are with the team sender, being sent, on an open team workspace
 * to a finance login (docs/team-sender.md): its progress says the team sender sends it and offers
 * no Help send (this desktop has no key); the same batch on a profile the desktops hold offers it.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceStatus } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(async () => {
  layout.remove();
  await act(() => applyLanguage('en'));
});

const CSV = ['phone_number,amount,first_name,last_name,email,description', '+237650000001,10000,Awa,Nkemdirim,awa@example.com,Commission'].join('\n');
const place = { host: 'db.example.com', port: 5432, database: 'paydesk_team', user: 'kofi', tls: 'verify' as const, hasCa: true };
const FINANCE: WorkspaceStatus = { store: 'workspace', place, state: 'open', who: { login: 'kofi', roles: ['finance'] }, schemaVersion: 48 };
const JOIN = 'Help send from this desktop';
const BY_SENDER = 'Sent by the team sender, which holds this profile’s keys: its progress shows here live.';

/** A batch being sent by another desktop or the sender, on the fake's profile (`local`), whose keys are with the sender or not. */
async function openSending(keysWithSender: boolean) {
  const backend = createBatchBackend({});
  await backend.handlers['batches:import']!({ fileName: 'october.csv', text: CSV, paymentMethod: 'momo_cm' } as never);
  backend.update('b1', 'sending');
  const api = createFakeApi({ ...backend.handlers, 'workspace:status': () => ok(FINANCE) }, [profile({ builtIn: false, scope: 'team', ...(keysWithSender ? { keysWithSender: true as const } : {}) })]);
  const view = await renderApp(api, { screen: 'batches', params: { batch: 'b1' } });
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  await act(async () => {
    await view.stores.workspace.getState().load();
  });
  return view;
}

describe('a batch being sent, on an open workspace, to a finance login', () => {
  it('on a sender-held profile: says the team sender sends it, and offers no Help send', async () => {
    await openSending(true);
    await screen.findByText(BY_SENDER);
    expect(screen.queryByRole('button', { name: JOIN })).toBeNull();
  });

  it('on a profile the desktops hold: offers Help send, and says nothing of a sender', async () => {
    await openSending(false);
    await screen.findByRole('button', { name: JOIN });
    expect(screen.queryByText(BY_SENDER)).toBeNull();
  });
});
