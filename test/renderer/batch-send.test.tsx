import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchProgress } from '../../shared/api';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, fail, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

const CSV = [
  'phone_number,amount,first_name,last_name,email,description',
  '+237650000001,10000,Awa,Nkemdirim,awa@example.com,Commission',
  '+237650000002,20000,Jean,Mbarga,jean@example.com,Advance',
  '+237650000005,30000,Chantal,Essomba,chantal@example.com,Refund',
].join('\n');
// 60,000 + fees (1 % + 50 each: 150 + 250 + 350) = 60,750.

async function openDraft(options: Parameters<typeof createBatchBackend>[0] = {}, profiles = [profile()]) {
  const backend = createBatchBackend(options);
  const api = createFakeApi(backend.handlers, profiles);
  const view = await renderApp(api, { screen: 'batches' });
  await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
  return { ...view, api, backend };
}

function progress(overrides: Partial<BatchProgress>): BatchProgress {
  return { batchId: 'b1', mode: 'send', state: 'sending', sent: 0, accepted: 0, failed: 0, unknown: 0, remaining: 3, ratePerSecond: 0, etaSeconds: null, final: 0, ...overrides };
}

describe('Bulk payouts: rehearse, confirm once, send', () => {
  it('rehearses on the local sandbox and shows which rows would fail, with their code', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Rehearse' }));
    const card = screen.getByRole('region', { name: 'Rehearsal on the local sandbox' });
    expect(await within(card).findByText('2 rows would fail:')).toBeTruthy();
    expect(within(card).getByText('PAYER_NOT_FOUND')).toBeTruthy();
    expect(within(card).getByText('TRANASACTION_CANCELLED')).toBeTruthy();
    expect(api.callsOf('batches:rehearse')).toEqual([{ batchId: 'b1' }]);
    await user.click(screen.getByRole('radio', { name: 'Would fail (2)' }));
    const rows = within(screen.getByRole('table', { name: /Rows of the batch/ })).getAllByRole('row');
    expect(rows.map((row) => row.getAttribute('aria-rowindex'))).toEqual(['1', '2', '3']);
    expect(within(rows[1]!).getByText('+237650000002', { exact: false })).toBeTruthy();
  });

  it('refuses a batch over the wallet balance before anything is prepared or sent', async () => {
    const { api } = await openDraft({ balance: 50_000 });
    expect(screen.getByText('The batch needs 60,750 XAF and the wallet holds 50,000 XAF. Nothing was sent.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Review and send' })).toHaveProperty('disabled', true);
    expect(api.callsOf('batches:prepare')).toEqual([]);
  });

  it('restates the batch with focus on Cancel, and starts it once however often Send is pressed', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    const send = await within(dialog).findByRole('button', { name: 'Send 3 payouts' });
    for (const text of ['Local sandbox', 'sandbox', '3', '60,000 XAF', '750 XAF', '60,750 XAF', '10,000,000 XAF']) expect(within(dialog).getByText(text)).toBeTruthy();
    const concurrency = within(dialog).getByRole('spinbutton', { name: 'Payouts sent at the same time' });
    const table = screen.getByRole('table', { name: /Rows of the batch/ });
    expect(within(table).queryAllByRole('button', { name: /^Edit / }).length).toBeGreaterThan(0);
    await user.clear(concurrency);
    await user.type(concurrency, '40');
    expect(within(dialog).getByText('must be a whole number from 1 to 16')).toBeTruthy();
    expect(send).toHaveProperty('disabled', true);
    await user.clear(concurrency);
    await user.type(concurrency, '6');
    await user.click(send);
    await user.click(send);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsOf('batches:start')).toEqual([{ batchId: 'b1', confirmationToken: 'token-b1-0', concurrency: 6 }]);
    expect(await screen.findByRole('heading', { name: 'Sending' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
    // The same table, now read-only: not a new one mounted and measured when sending starts (issue 28).
    await waitFor(() => expect(within(table).queryAllByRole('button', { name: /^Edit / })).toHaveLength(0));
    expect(screen.getByRole('table', { name: /Rows of the batch/ })).toBe(table);
  });

  it('a refused Send puts focus on the reason, never on <body> (issue 37 item 7)', async () => {
    const backend = createBatchBackend();
    const api = createFakeApi({ ...backend.handlers, 'batches:start': () => fail('INSUFFICIENT_FUNDS', 'Insufficient funds') });
    const view = await renderApp(api, { screen: 'batches' });
    await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
    await within(await screen.findByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
    await view.user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
    await view.user.click(await within(dialog).findByRole('button', { name: 'Send 3 payouts' }));
    const refusal = await within(dialog).findByTestId('batch-confirm-refusal');
    await waitFor(() => expect(document.activeElement).toBe(refusal));
    expect(within(refusal).getByRole('alert').textContent).toContain('The wallet balance does not cover the amount plus the fee.');
  });

  it('waits for a rehearsal still running before Send, then shows its result (issue 23 item 4)', async () => {
    const { api, user } = await openDraft();
    const rehearse = api.handlers['batches:rehearse']!;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    api.handlers['batches:rehearse'] = async (input) => {
      await released;
      return rehearse(input);
    };
    await user.click(screen.getByRole('button', { name: 'Rehearse' }));
    act(() => api.emit('batch:progress', progress({ mode: 'rehearsal', state: 'draft', sent: 1, remaining: 2 })));
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
    expect(await within(dialog).findByText('Running: 1 of 3 rows. Sending waits for it to finish.')).toBeTruthy();
    const waiting = await within(dialog).findByRole('button', { name: /Waiting for the rehearsal/ });
    expect(waiting).toHaveProperty('disabled', true);
    await user.click(waiting);
    expect(api.callsOf('batches:start')).toEqual([]);
    await act(async () => release());
    expect(await within(dialog).findByText('2 of 3 rows would fail')).toBeTruthy();
    const send = await within(dialog).findByRole('button', { name: 'Send 3 payouts' });
    expect(send).toHaveProperty('disabled', false);
  });

  it('says the rehearsal was skipped when none was run', async () => {
    const { user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
    expect(within(dialog).getByText('Skipped: the rows were not rehearsed')).toBeTruthy();
    expect(await within(dialog).findByRole('button', { name: 'Send 3 payouts' })).toHaveProperty('disabled', false);
  });

  it('on a live profile needs the total typed before main issues the token', async () => {
    const live = profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false });
    const { api, user } = await openDraft({ environment: 'live', profileName: 'Acme live' }, [live]);
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm LIVE batch' });
    expect(within(dialog).getByText('This is a live batch: real money leaves the wallet, 3 payouts.')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.callsOf('batches:prepare')).toEqual([]);
    const confirm = within(dialog).getByRole('button', { name: 'Confirm total' });
    const typed = within(dialog).getByLabelText('Type the total amount (XAF) to confirm');
    await user.type(typed, '60,000');
    expect(within(dialog).getByText('does not match the total amount')).toBeTruthy();
    expect(confirm).toHaveProperty('disabled', true);
    await user.clear(typed);
    await user.type(typed, '60 750');
    await user.click(confirm);
    await user.click(await within(dialog).findByRole('button', { name: 'Send 3 payouts' }));
    expect(api.callsOf('batches:prepare')).toEqual([{ batchId: 'b1', typedTotal: 60_750 }]);
    expect(api.callsOf('batches:start')).toEqual([expect.objectContaining({ confirmationToken: 'token-b1-0' })]);
  });

  it('asks for explicit confirmation when the same file was already sent in an earlier batch', async () => {
    const { api, backend, user } = await openDraft();
    backend.update('b1', 'done');
    await user.click(screen.getByRole('button', { name: '← All batches' }));
    await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october-again.csv', { type: 'text/csv' }));
    expect(await screen.findByText('These rows were already sent')).toBeTruthy();
    expect(screen.getByText(/as batch “october.csv” \(Done\)/)).toBeTruthy();
    await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
    const review = screen.getByRole('button', { name: 'Review and send' });
    expect(review).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('checkbox', { name: 'Send these rows again anyway' }));
    await user.click(review);
    await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' });
    expect(api.callsOf('batches:prepare')).toEqual([{ batchId: 'b2', acceptDuplicateFile: true }]);
  });

  it('only points out rows that are also in an unsent draft, without asking', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: '← All batches' }));
    await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october-copy.csv', { type: 'text/csv' }));
    expect(await screen.findByText('These rows are also in another batch, not sent yet')).toBeTruthy();
    expect(screen.queryByRole('checkbox')).toBeNull();
    await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' });
    expect(api.callsOf('batches:prepare')).toEqual([{ batchId: 'b2' }]);
  });

  it('takes 10,000 progress pushes with at most two row fetches, and shows the latest counters at once', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    await user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' }));
    await screen.findByRole('heading', { name: 'Sending' });
    const fetchesBefore = api.callsOf('batches:get').length;
    act(() => {
      for (let i = 1; i <= 10_000; i += 1) api.emit('batch:progress', progress({ sent: i, accepted: i - 1, failed: 1, remaining: 10_000 - i, ratePerSecond: 5, etaSeconds: (10_000 - i) / 5, answeredInWindow: 300, rateWindowSeconds: 60 }));
    });
    const bar = screen.getByRole('progressbar', { name: 'Batch progress' });
    await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe('10000'));
    const counters = screen.getByRole('group', { name: 'Batch progress' });
    expect(within(counters).getByText('9,999')).toBeTruthy();
    expect(within(counters).getByText('300 in the last minute')).toBeTruthy();
    // A state change fetches the rows at once; the 10,000 pushes before it cost at most one periodic fetch.
    act(() => api.emit('batch:progress', progress({ state: 'done', sent: 10_000, accepted: 9_999, failed: 1, remaining: 0 })));
    await waitFor(() => expect(api.callsOf('batches:get').length).toBeGreaterThan(fetchesBefore), { timeout: 5000 });
    expect(api.callsOf('batches:get').length - fetchesBefore).toBeLessThanOrEqual(2);
  });

  it('pauses, resumes, and cancels the remaining rows only after asking', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    await user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' }));
    await user.click(await screen.findByRole('button', { name: 'Pause' }));
    expect(await screen.findByText('Paused. Payouts already sent keep settling.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Resume' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel remaining' }));
    const ask = await screen.findByRole('dialog', { name: 'Cancel remaining' });
    expect(within(ask).getByText('Stop the 3 payouts not sent yet? Those already sent are not affected.')).toBeTruthy();
    expect(document.activeElement).toBe(within(ask).getByRole('button', { name: 'Keep sending' }));
    expect(api.callsOf('batches:cancel')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'Stop them' }));
    await waitFor(() => expect(api.callsOf('batches:cancel')).toEqual([{ batchId: 'b1' }]));
    expect(api.callsOf('batches:pause')).toEqual([{ batchId: 'b1' }]);
    expect(api.callsOf('batches:resume')).toEqual([{ batchId: 'b1' }]);
  });

  it('shows each row’s result, exports the report, and retries only the failed rows as a new draft', async () => {
    const { api, backend, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    await user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' }));
    await screen.findByRole('heading', { name: 'Sending' });
    backend.update('b1', 'done', (row) => {
      const failed = row.values.phone_number !== '+237650000001';
      return { ...row, state: 'accepted', status: failed ? 'failed' : 'completed', failedCode: row.values.phone_number === '+237650000002' ? 'PAYER_NOT_FOUND' : failed ? 'TRANASACTION_CANCELLED' : null, transactionId: `TE_${row.rowNumber}` };
    });
    act(() => api.emit('batch:progress', progress({ state: 'done', sent: 3, accepted: 3, failed: 2, remaining: 0, final: 3 })));
    expect(await screen.findByText('1 completed, 2 failed, 0 unknown, 0 processing')).toBeTruthy();
    const rows = within(screen.getByRole('table', { name: /Rows of the batch/ })).getAllByRole('row');
    expect(within(rows[1]!).getByText('Completed')).toBeTruthy();
    expect(within(rows[2]!).getByText('PAYER_NOT_FOUND')).toBeTruthy();
    expect(screen.getByText('Every row has a final status.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Export the report (CSV)' }));
    expect(await screen.findByText(/Exported 3 rows to paydesk-batch-report/)).toBeTruthy();
    expect(api.callsOf('batches:report')).toEqual([{ batchId: 'b1', language: 'en' }]);

    await user.click(screen.getByRole('button', { name: 'Retry the 2 failed rows' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'october.csv (retry)' })).toBeTruthy();
    expect(api.callsOf('batches:retryFailed')).toEqual([{ batchId: 'b1' }]);
    expect(screen.getByText('Made from batch b1: each row keeps its external id, or gets one derived from it (…-r1) when its payout exists and failed.')).toBeTruthy();
    expect(within(screen.getByRole('table', { name: /Rows of the batch/ })).getAllByRole('row')).toHaveLength(3);
    // A retry is a new draft: it needs its own confirmation before anything is sent.
    expect(screen.getByRole('button', { name: 'Review and send' })).toBeTruthy();
    expect(api.callsOf('batches:start')).toHaveLength(1);
  });

  it('starts the batch once when Send is clicked twice in the same tick', async () => {
    const { api, user } = await openDraft();
    await user.click(screen.getByRole('button', { name: 'Review and send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm batch' });
    const send = await within(dialog).findByRole('button', { name: 'Send 3 payouts' });
    act(() => {
      fireEvent.click(send);
      fireEvent.click(send);
    });
    await waitFor(() => expect(api.callsOf('batches:start')).toHaveLength(1));
    expect(await screen.findByRole('heading', { name: 'Sending' })).toBeTruthy();
    expect(api.callsOf('batches:start')).toHaveLength(1);
  });
});
