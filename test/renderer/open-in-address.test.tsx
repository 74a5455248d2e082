/**
 * An open batch has an address (issue 26 item 4): opening one writes `batch=<id>` into the Bulk
 * payouts screen's parameters (the router makes it a step Back walks through and an address a
 * reload keeps), and an address naming one opens it.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

const CSV = ['phone_number,amount,first_name,last_name,email', '+237650000001,10000,Awa,Nkemdirim,awa@example.com'].join('\n');

it('writes the open batch into the address, closes it when the address drops it, and opens the batch an address names', async () => {
  const backend = createBatchBackend({});
  const api = createFakeApi(backend.handlers, [profile()]);
  const { user, stores } = await renderApp(api, { screen: 'batches' });
  await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  expect(stores.ui.getState().params).toEqual({ batch: 'b1' });

  // Back (the address without the batch): the list.
  act(() => stores.ui.getState().goTo({ screen: 'batches', journalId: null, params: {} }));
  await screen.findByRole('heading', { level: 1, name: 'Bulk payouts' });
  expect(stores.batch.getState().openId).toBeNull();
  cleanup();

  // A reload at the batch's address: the batch, not the list.
  const reloaded = await renderApp(api, { screen: 'batches', params: { batch: 'b1' } });
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  expect(reloaded.stores.batch.getState().openId).toBe('b1');
  expect(reloaded.stores.ui.getState().params).toEqual({ batch: 'b1' });
});
