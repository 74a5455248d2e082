/**
 * A team profile whose keys are with the team sender (docs/team-sender.md, issue 38): Settings
 * never asks for or shows a secret key field for it (it says the keys are with the sender), and the
 * batch preview and Review step say the sender sends it and reads the wallet, in English and French.
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

it('shows no secret key field for a profile whose keys are with the team sender, and says so', async () => {
  const profiles = [
    profile(),
    profile({ id: 'team-live', name: 'Team live', environment: 'live', builtIn: false, scope: 'team', keysWithSender: true, hasPaymentSecret: false, hasPayoutSecret: false }),
  ];
  const api = createFakeApi({ 'profiles:list': () => ok({ profiles, activeId: 'local' }) });
  const { user, container } = await renderApp(api, { screen: 'settings' });
  await user.click(await screen.findByRole('button', { name: /Team live/ }));
  await screen.findByText('The keys of this team profile are with the team sender: it signs and sends for it, and no desktop holds, asks for or shows its secret keys.');
  expect(container.querySelector('input[id^="secret-"]')).toBeNull();
  expect(screen.queryByLabelText('Payout secret key')).toBeNull();
  expect(screen.queryByRole('button', { name: 'Replace payout secret' })).toBeNull();

  await act(() => applyLanguage('fr'));
  await waitFor(() => expect(plain(container.textContent)).toContain('Les clés de ce profil d’équipe sont chez l’expéditeur de l’équipe : il signe et envoie pour lui'));
  expect(container.querySelector('input[id^="secret-"]')).toBeNull();
});

it('says the team sender sends the batch and reads the wallet, in the preview and the Review step, with no balance to check again', async () => {
  const backend = createBatchBackend({});
  const api = createFakeApi(backend.handlers, [profile()]);
  const handlers = api.handlers as unknown as Record<string, (input: unknown) => unknown>;
  for (const channel of ['batches:preview', 'batches:prepare']) {
    const real = handlers[channel]!;
    handlers[channel] = async (input: unknown) => {
      const answer = (await real(input)) as { ok: true; value: BatchPreview } | { ok: false };
      return answer.ok ? ok({ ...answer.value, totalFees: null, feesKnown: false, totalDebit: answer.value.totalAmount, balance: null, balanceUnread: null, overBalance: false, bySender: true }) : answer;
    };
  }
  const { user } = await renderApp(api, { screen: 'batches' });
  await user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  const preview = screen.getByRole('region', { name: 'Preview' });
  await within(preview).findByText('Read by the team sender, which holds this profile’s keys.');
  expect(within(preview).queryByRole('button', { name: 'Check the balance again' })).toBeNull();

  await user.click(screen.getByRole('button', { name: 'Review and send' }));
  const dialog = await screen.findByRole('dialog');
  await within(dialog).findByText('Sent by the team sender: it holds this profile’s keys and sends the batch; this desktop asks it and follows the batch live.');
  // The fees are the service's to charge: the total says they come on top, never a bare amount as the wallet's debit.
  expect(plain(dialog.textContent)).toContain('Total from the wallet10,000 XAF plus the service’s fees');
  await act(() => applyLanguage('fr'));
  await waitFor(() => expect(plain(dialog.textContent)).toContain('Envoyé par l’expéditeur de l’équipe : il détient les clés de ce profil et envoie le lot'));
  expect(plain(dialog.textContent)).toContain('Lu par l’expéditeur de l’équipe, qui détient les clés de ce profil.');
  expect(plain(dialog.textContent)).toMatch(/Total prélevé sur le portefeuille10 000 (XAF|FCFA) plus les frais du service/);
});
