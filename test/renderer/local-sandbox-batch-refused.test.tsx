/**
 * A Local sandbox batch on a team workspace is sent from its own desktop only
 * (docs/decisions/local-sandbox-batch-stays-on-its-desktop.md): on another desktop its Review and
 * send (the draft, this desktop on the Local sandbox too) and Resume are greyed with a note saying
 * whose Local sandbox it is on and that a team batch goes on the Team sandbox; Help send is greyed
 * for any Local sandbox batch, with its reason. English and French.
 */
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_PROFILE_ID, type BatchState, type WorkspaceStatus } from '../../shared/api';
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
const FINANCE: WorkspaceStatus = { store: 'workspace', place, state: 'open', who: { login: 'kofi', roles: ['finance'] }, schemaVersion: 50 };
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

const ELSEWHERE = 'This batch is on the Local sandbox of another desktop (imported by fatou): each desktop’s Local sandbox is a service of its own, so only that desktop sends, resumes or helps send it. A batch the team sends together goes on the Team sandbox profile.';
const ELSEWHERE_FR = 'Ce lot est sur le bac à sable local d’un autre poste (importé par fatou) : le bac à sable local de chaque poste est un service distinct';
const JOIN_REFUSED = 'a batch the team sends together goes on the Team sandbox profile.';

/** A Local sandbox batch in `state`, another desktop's unless `elsewhereBy` is null, opened on this desktop (on the Local sandbox). */
async function openBatch(state: BatchState, elsewhereBy: string | null) {
  const backend = createBatchBackend({});
  await backend.handlers['batches:import']!({ fileName: 'october.csv', text: CSV, paymentMethod: 'momo_cm' } as never);
  backend.update('b1', state);
  const stored = backend.batches.get('b1')!;
  backend.batches.set('b1', { ...stored, batch: { ...stored.batch, profileId: LOCAL_SANDBOX_PROFILE_ID, ...(elsewhereBy ? { sandboxElsewhereBy: elsewhereBy } : {}) } });
  const api = createFakeApi({ ...backend.handlers, 'workspace:status': () => ok(FINANCE) }, [profile({ id: LOCAL_SANDBOX_PROFILE_ID })]);
  const view = await renderApp(api, { screen: 'batches', params: { batch: 'b1' } });
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  await act(async () => {
    await view.stores.workspace.getState().load();
  });
  return view;
}

const note = () => document.getElementById('batch-sandbox-refused');

describe("another desktop's Local sandbox batch", () => {
  it('greys Resume with the reason, en and fr', async () => {
    const { container } = await openBatch('paused', 'fatou');
    const resume = await screen.findByRole('button', { name: 'Resume' });
    await waitFor(() => expect((resume as HTMLButtonElement).disabled).toBe(true));
    expect(resume.getAttribute('aria-describedby')).toBe('batch-sandbox-refused');
    expect(note()!.textContent).toBe(ELSEWHERE);
    await act(() => applyLanguage('fr'));
    await waitFor(() => expect(plain(container.textContent)).toContain(ELSEWHERE_FR));
    await act(() => applyLanguage('en'));
  });

  it('greys an interrupted batch\'s Look up and resume, and the draft\'s Review and send', async () => {
    await openBatch('interrupted', 'fatou');
    await waitFor(() => expect((screen.getByRole('button', { name: 'Look up and resume' }) as HTMLButtonElement).disabled).toBe(true));
    expect(note()!.textContent).toBe(ELSEWHERE);
    cleanup();
    const { stores } = await openBatch('draft', 'fatou');
    // The preview is read: only the batch being another desktop's keeps the button grey.
    await waitFor(() => expect(stores.batch.getState().preview.status).toBe('ready'));
    const review = await screen.findByRole('button', { name: 'Review and send' });
    expect((review as HTMLButtonElement).disabled).toBe(true);
    expect(review.getAttribute('aria-describedby')).toBe('batch-sandbox-refused');
    expect(note()!.textContent).toBe(ELSEWHERE);
  });

  it('greys Help send on a sending Local sandbox batch, saying why', async () => {
    await openBatch('sending', 'fatou');
    const join = await screen.findByRole('button', { name: 'Help send from this desktop' });
    expect((join as HTMLButtonElement).disabled).toBe(true);
    expect(note()!.textContent).toBe(ELSEWHERE);
  });
});

describe("this desktop's own Local sandbox batch", () => {
  it('resumes as before, with no note', async () => {
    await openBatch('paused', null);
    const resume = await screen.findByRole('button', { name: 'Resume' });
    await waitFor(() => expect((resume as HTMLButtonElement).disabled).toBe(false));
    expect(note()).toBeNull();
  });

  it('is reviewed and sent as before', async () => {
    await openBatch('draft', null);
    const review = await screen.findByRole('button', { name: 'Review and send' });
    await waitFor(() => expect((review as HTMLButtonElement).disabled).toBe(false));
    expect(note()).toBeNull();
  });

  it('still greys Help send (nobody shares its engine), with the reason naming the Team sandbox', async () => {
    await openBatch('sending', null);
    const join = await screen.findByRole('button', { name: 'Help send from this desktop' });
    expect((join as HTMLButtonElement).disabled).toBe(true);
    expect(note()!.textContent).toContain(JOIN_REFUSED);
  });
});
