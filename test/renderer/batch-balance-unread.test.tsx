/**
 * A balance the service refused to read (issue 26 item 2): the preview and the Review step say
 * why (its rate limit, 429), in English and French, and offer to check again; never "Not
 * reported by this service".
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { BatchPreview } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

const CSV = ['phone_number,amount,first_name,last_name,email', '+237650000001,10000,Awa,Nkemdirim,awa@example.com'].join('\n');
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');
const REFUSED = { httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests.', retryAfterSeconds: 42 };

it('says the rate limit refused the balance read, and reads it again on request, in the preview and the Review step', async () => {
  const backend = createBatchBackend({});
  const api = createFakeApi(backend.handlers, [profile()]);
  let refuse = true;
  const handlers = api.handlers as unknown as Record<string, (input: unknown) => unknown>;
  for (const channel of ['batches:preview', 'batches:prepare']) {
    const real = handlers[channel]!;
    handlers[channel] = async (input: unknown) => {
      const answer = (await real(input)) as { ok: true; value: BatchPreview } | { ok: false };
      return answer.ok && refuse ? ok({ ...answer.value, balance: null, balanceUnread: REFUSED, overBalance: false }) : answer;
    };
  }
  const { user } = await renderApp(api, { screen: 'batches' });
  await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  const preview = screen.getByRole('region', { name: 'Preview' });
  await within(preview).findByText('Not read just now: the service’s rate limit refused the request (HTTP 429). It asked to wait 42 s.');
  expect(preview.textContent).not.toMatch(/Not reported/);

  await act(() => applyLanguage('fr'));
  await waitFor(() => expect(plain(preview.textContent)).toContain('Non lu pour l’instant : la limite de débit du service a refusé la demande (HTTP 429). Il a demandé d’attendre 42 s.'));
  expect(within(preview).getByRole('button', { name: 'Vérifier le solde à nouveau' })).toBeTruthy();
  await act(() => applyLanguage('en'));

  // The Review step before money moves: the same reason, and Check again asks for a new confirmation.
  await user.click(screen.getByRole('button', { name: 'Review and send' }));
  const dialog = await screen.findByRole('dialog');
  await within(dialog).findByRole('button', { name: 'Send 1 payout' });
  expect(dialog.textContent).toContain('Not read just now: the service’s rate limit refused the request (HTTP 429).');
  const prepared = api.callsOf('batches:prepare').length;
  refuse = false;
  await user.click(within(dialog).getByRole('button', { name: 'Check the balance again' }));
  await waitFor(() => expect(api.callsOf('batches:prepare').length).toBe(prepared + 1));
  await within(dialog).findByText('10,000,000 XAF');
  expect(dialog.textContent).not.toMatch(/Not read/);
});
