/**
 * The Audit screen live (issue 25; workspace migration 31): it reads the log again when the
 * journal's change events name an audit line (or say `everything`), never otherwise and never on a
 * timer; a line written on another desktop shows above what was shown, older pages the person
 * opened are kept, and a burst larger than a page replaces them (paged again from the new page).
 */
import { cleanup, screen, within } from '@testing-library/react';
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, JournalChanged } from '../../shared/api';
import { AUDIT_LIVE_MS } from '../../renderer/src/stores';
import { mergeNewest } from '../../renderer/src/stores/audit';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';

const changed = (overrides: Partial<JournalChanged> = {}): JournalChanged => ({ entries: [], batches: [], reconciliations: [], settings: [], approvals: [], audit: [], everything: false, ...overrides });

function entry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return { id, at: '2026-11-25T10:00:00Z', actor: 'fatou', action: 'send', subject: `entry:INV-${id}`, before: null, after: null, remark: null, ...overrides };
}

afterEach(() => cleanup());

const wait = (ms: number) => act(() => new Promise((resolve) => setTimeout(resolve, ms)));

describe('the Audit screen on change events', () => {
  it('shows a line written elsewhere above the lines shown, keeping the older page opened, and reads nothing for other changes', async () => {
    // The log as main answers it: newest first, pages of two.
    let log = [entry(4), entry(3), entry(2), entry(1)];
    const api = createFakeApi({
      'audit:list': (input) => {
        const kept = log.filter((line) => input.before === undefined || line.id < input.before);
        const page = kept.slice(0, 2);
        return ok({ entries: page, nextBefore: kept.length > 2 ? page.at(-1)!.id : null });
      },
    });
    const { user } = await renderApp(api, { screen: 'audit' });
    const table = await screen.findByRole('table', { name: 'Audit log, newest first' });
    await user.click(screen.getByRole('button', { name: 'Show older lines' }));
    await screen.findByRole('cell', { name: 'entry:INV-1' });
    const subjects = () => within(table).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[3]!.textContent);
    expect(subjects()).toEqual(['entry:INV-4', 'entry:INV-3', 'entry:INV-2', 'entry:INV-1']);
    const reads = () => api.callsOf('audit:list').length;
    const before = reads();

    // Entries, batches, approvals changed: the log is not read.
    api.emit('journal:changed', changed({ entries: ['j1'], batches: ['b1'], approvals: ['7'] }));
    await wait(AUDIT_LIVE_MS * 3);
    expect(reads()).toBe(before);

    // kofi approves on his desktop: one line, named by the push.
    log = [entry(5, { actor: 'kofi', action: 'approve', subject: 'approval:9' }), ...log];
    api.emit('journal:changed', changed({ audit: ['5'] }));
    await screen.findByRole('cell', { name: 'approval:9' });
    expect(reads()).toBe(before + 1);
    expect(subjects()).toEqual(['approval:9', 'entry:INV-4', 'entry:INV-3', 'entry:INV-2', 'entry:INV-1']);
    expect(api.callsOf('audit:list').at(-1)).toEqual({ filter: {} });
    // Every page was opened: no "older" button comes back.
    expect(screen.queryByRole('button', { name: 'Show older lines' })).toBeNull();

    // The connection came back: everything is read again.
    api.emit('journal:changed', changed({ everything: true }));
    await wait(AUDIT_LIVE_MS * 3);
    expect(reads()).toBe(before + 2);
  });
});

describe('mergeNewest', () => {
  const shown = { entries: [entry(4), entry(3)], nextBefore: 3 };
  it('puts the new lines above what is shown and keeps its paging', () => {
    expect(mergeNewest(shown, [entry(6), entry(5), entry(4)], 4)).toEqual({ entries: [entry(6), entry(5), entry(4), entry(3)], nextBefore: 3 });
    expect(mergeNewest(shown, [entry(5), entry(4)], 4)).toEqual({ entries: [entry(5), entry(4), entry(3)], nextBefore: 3 });
  });
  it('starts again from the new page when it does not reach what is shown, or holds every line', () => {
    // Ids may skip (a rolled-back insert): a page that stops above what is shown may leave lines between.
    expect(mergeNewest(shown, [entry(6), entry(5)], 5)).toEqual({ entries: [entry(6), entry(5)], nextBefore: 5 });
    expect(mergeNewest(shown, [entry(5), entry(4), entry(3)], null)).toEqual({ entries: [entry(5), entry(4), entry(3)], nextBefore: null });
    expect(mergeNewest({ entries: [], nextBefore: null }, [entry(1)], null)).toEqual({ entries: [entry(1)], nextBefore: null });
  });
});
