/**
 * The Audit screen (issue 25 item 5) against a fake main process: the log's lines in a table (when,
 * who, action in words, subject, before/after summarized, remark), the filters sent as the channel's
 * filter (a day from its local midnight, the last day included), older lines on demand, Export CSV
 * of the applied filters, and on a single desktop a plain sentence saying why it is empty.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../shared/api';
import { auditFilterOf } from '../../renderer/src/stores/audit';
import { createFakeApi, fail, ok } from './fakeApi';
import { renderApp } from './render';

function entry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return { id, at: '2026-11-25T10:00:00Z', actor: 'fatou', action: 'send', subject: `entry:INV-${id}`, before: null, after: { amount: 5000 }, remark: null, ...overrides };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Audit screen', () => {
  it('shows the log, sends the filters, pages on, and exports what the filters keep', async () => {
    const api = createFakeApi({
      'audit:list': (input) =>
        input.before === 7
          ? ok({ entries: [entry(3, { action: 'approve', actor: 'kofi', remark: 'checked' })], nextBefore: null })
          : ok({ entries: [entry(9, { action: 'policy_change', actor: 'adele', subject: 'sandbox/XAF', before: { approvals: 1 }, after: { approvals: 2 } }), entry(7)], nextBefore: 7 }),
      'audit:export': () => ok({ filename: 'paydesk-audit-2026-11-25.csv', csv: '\uFEFF"When"\r\n', rows: 2 }),
    });
    const { user } = await renderApp(api, { screen: 'audit' });
    expect(screen.getByRole('button', { name: 'Audit' }).getAttribute('aria-current')).toBe('page');
    const table = await screen.findByRole('table', { name: 'Audit log, newest first' });
    const rows = within(table).getAllByRole('row');
    expect(rows.map((r) => within(r).queryAllByRole('columnheader').map((c) => c.textContent))[0]).toEqual(['When', 'Who', 'Action', 'Subject', 'Before', 'After', 'Remark']);
    expect(within(rows[1]!).getAllByRole('cell').slice(1).map((c) => c.textContent)).toEqual(['adele', 'Changed the approval policy', 'sandbox/XAF', 'approvals: 1', 'approvals: 2', '']);
    expect(within(rows[2]!).getAllByRole('cell').slice(1).map((c) => c.textContent)).toEqual(['fatou', 'Sent', 'entry:INV-7', '', 'amount: 5000', '']);

    await user.click(screen.getByRole('button', { name: 'Show older lines' }));
    expect(await screen.findByRole('cell', { name: 'checked' })).toBeTruthy();
    expect(api.callsOf('audit:list').at(-1)).toEqual({ filter: {}, before: 7 });
    expect(screen.queryByRole('button', { name: 'Show older lines' })).toBeNull();

    await user.type(screen.getByLabelText('Who (login)'), ' kofi ');
    await user.selectOptions(screen.getByLabelText('Action'), 'Approved');
    await user.type(screen.getByLabelText('From (day)'), '2026-11-02');
    await user.type(screen.getByLabelText('To (day, included)'), '2026-11-03');
    await user.type(screen.getByLabelText('Subject contains'), 'INV');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    const sent = { actor: 'kofi', action: 'approve', from: new Date(2026, 10, 2).toISOString(), to: new Date(2026, 10, 4).toISOString(), subject: 'INV' };
    expect(api.callsOf('audit:list').at(-1)).toEqual({ filter: sent });

    const created: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => (created.push(blob), 'blob:x'), revokeObjectURL: () => undefined }));
    await screen.findByRole('table');
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(api.callsOf('audit:export')).toEqual([{ filter: sent, language: 'en' }]);
    expect(await screen.findByText('2 lines exported to paydesk-audit-2026-11-25.csv.')).toBeTruthy();
    expect(created).toHaveLength(1);
  });

  it('refuses a first day after the last one, without asking main', async () => {
    const api = createFakeApi({ 'audit:list': () => ok({ entries: [], nextBefore: null }) });
    const { user } = await renderApp(api, { screen: 'audit' });
    expect(await screen.findByText('No line of the log matches these filters.')).toBeTruthy();
    await user.type(screen.getByLabelText('From (day)'), '2026-11-05');
    await user.type(screen.getByLabelText('To (day, included)'), '2026-11-03');
    const calls = api.callsOf('audit:list').length;
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(screen.getByRole('alert').textContent).toBe('The first day is after the last one.');
    expect(api.callsOf('audit:list')).toHaveLength(calls);
  });

  it('says why it is empty on a single desktop', async () => {
    const api = createFakeApi({ 'audit:list': () => fail('APPROVALS_UNAVAILABLE', 'The audit log exists on a team workspace only.') });
    await renderApp(api, { screen: 'audit' });
    expect(await screen.findByText(/The audit log exists on a team workspace only\. This desktop keeps its own journal/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
  });

  it('leaves out empty filters', () => {
    expect(auditFilterOf({ actor: ' ', action: '', fromDay: '', toDay: '', subject: '' })).toEqual({});
  });
});
