/**
 * "Send them as new payouts" on the Bulk payouts screen (issue 35 item 2): a file sent, imported
 * again; its rows sent earlier are never sent again under their ids, so the screen offers no
 * "send anyway" switch but two answers: send only the rows that never left, or give the sent rows
 * new external ids, after a dialog that lists old → new ids and says each is paid again.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyLanguage } from '../../renderer/src/i18n';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, profile } from './fakeApi';
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

/** october.csv sent (every row accepted), then imported again as october-again.csv (b2). */
async function importedAgain() {
  const backend = createBatchBackend();
  const api = createFakeApi(backend.handlers, [profile()]);
  const view = await renderApp(api, { screen: 'batches' });
  await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  backend.update('b1', 'done', (row) => ({ ...row, state: 'accepted', status: 'completed' }));
  await view.user.click(screen.getByRole('button', { name: '← All batches' }));
  await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october-again.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'october-again.csv' });
  await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
  return { ...view, api, backend };
}

describe('rows sent earlier, sent as new payouts', () => {
  it('offers no send-anyway switch: the sent rows are dropped or sent as new payouts', async () => {
    await importedAgain();
    const notice = screen.getByTestId('sent-earlier');
    expect(within(notice).getByText('3 rows of this file were already sent')).toBeTruthy();
    expect(within(notice).getByRole('button', { name: 'Send them as new payouts (new external ids)…' })).toBeTruthy();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.getByRole('button', { name: 'Review and send' })).toHaveProperty('disabled', true);
  });

  it('lists old → new ids in its dialog, Keep first; kept, nothing is written', async () => {
    const { api, user } = await importedAgain();
    await user.click(screen.getByRole('button', { name: 'Send them as new payouts (new external ids)…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pay these 3 rows again as new payouts?' });
    expect(within(dialog).getByText(/Each will be paid again: a second payout under a new external id/)).toBeTruthy();
    const list = await within(dialog).findByTestId('renew-list');
    expect(within(list).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Row 2 · b1-2 → b1-2-n1', 'Row 3 · b1-3 → b1-3-n1', 'Row 4 · b1-4 → b1-4-n1']);
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep the draft as it is' }));
    await user.click(within(dialog).getByRole('button', { name: 'Keep the draft as it is' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.callsOf('batches:renewSentIds')).toEqual([{ batchId: 'b2', dryRun: true }]);
    expect(screen.getByTestId('sent-earlier')).toBeTruthy();
  });

  it('gives them new ids once confirmed: the draft shows them, and the batch is confirmed as any other', async () => {
    const { api, user } = await importedAgain();
    await user.click(screen.getByRole('button', { name: 'Send them as new payouts (new external ids)…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pay these 3 rows again as new payouts?' });
    await within(dialog).findByTestId('renew-list');
    await user.click(within(dialog).getByRole('button', { name: 'Give them new ids' }));
    await waitFor(() => expect(screen.queryByTestId('sent-earlier')).toBeNull());
    expect(api.callsOf('batches:renewSentIds')).toEqual([{ batchId: 'b2', dryRun: true }, { batchId: 'b2' }]);
    const table = screen.getByRole('table', { name: /Rows of the batch/ });
    expect(await within(table).findByText('b1-2-n1', { exact: false })).toBeTruthy();
    expect(within(table).getByText('b1-4-n1', { exact: false })).toBeTruthy();
    await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
    const review = screen.getByRole('button', { name: 'Review and send' });
    await waitFor(() => expect(review).toHaveProperty('disabled', false));
    await user.click(review);
    await within(await screen.findByRole('dialog', { name: 'Confirm batch' })).findByRole('button', { name: 'Send 3 payouts' });
    expect(api.callsOf('batches:prepare')).toEqual([{ batchId: 'b2', acceptDuplicateFile: true }]);
  });

  it('says it in French', async () => {
    const { user } = await importedAgain();
    await user.click(screen.getByRole('button', { name: 'Send them as new payouts (new external ids)…' }));
    await screen.findByRole('dialog', { name: 'Pay these 3 rows again as new payouts?' });
    await act(() => applyLanguage('fr'));
    const dialog = await screen.findByRole('dialog', { name: 'Payer ces 3 lignes à nouveau, comme nouveaux transferts ?' });
    expect(within(dialog).getByRole('button', { name: 'Leur donner de nouvelles références' })).toBeTruthy();
    expect(within(dialog).getByText('Ligne 2 · b1-2 → b1-2-n1')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Les envoyer comme nouveaux transferts (nouvelles références externes)…' })).toBeTruthy();
    await act(() => applyLanguage('en'));
  });
});
