/**
 * The Sandbox screen's scenario form when the engine refuses: a bad phone number marks the value
 * box and names it in the list of problems; a second scenario for the same key says so, in the
 * console's words (not the generic "does not fit this transaction's state"), in both languages.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxStatus } from '../../shared/api';
import { createFakeApi, fail, ok } from './fakeApi';
import { App } from '../../renderer/src/App';
import { createStores } from '../../renderer/src/stores';
import { renderApp, screenLoaded } from './render';

afterEach(cleanup);

const engine: SandboxStatus = {
  running: true,
  url: 'http://127.0.0.1:4010',
  keys: [],
  maintenance: false,
  settleMs: 2000,
  webhookUrl: null,
  clockOffsetSeconds: 0,
  error: null,
};

function sandboxApi(addScenario: () => ReturnType<typeof fail>) {
  return createFakeApi({
    'sandbox:status': () => ok(engine),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_250_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': () => ok({ deliveries: [], nextCursor: null }),
    'sandbox:scenarios': () => ok({ scenarios: [] }),
    'sandbox:addScenario': addScenario,
  });
}

describe('scenario form refusals', () => {
  it('marks the value box for a bad phone number and lists the problem under its label', async () => {
    const api = sandboxApi(() => fail('INVALID_INPUT', 'Some fields are not valid.', { phone_number: ['must be + followed by the country code and number, digits only (e.g. +237650000001)'] }));
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const form = await screen.findByRole('form', { name: 'Add a scenario' });
    const box = within(form).getByLabelText('Phone number or external id');
    await user.type(box, '0677');
    await user.click(within(form).getByRole('button', { name: 'Add scenario' }));
    await waitFor(() => expect(box.getAttribute('aria-invalid')).toBe('true'));
    const described = document.getElementById(box.getAttribute('aria-describedby') ?? '');
    expect(described?.textContent).toBe('Phone number or external id: must be + followed by the country code and number, digits only (e.g. +237650000001)');
    expect(screen.getByText('Correct the fields marked in the form; each problem is listed below.')).toBeTruthy();
  });

  it('says a scenario already steers the value, not that an action does not fit a transaction’s state', async () => {
    const api = sandboxApi(() => fail('CONFLICT', 'Scenario scn_1 already steers phone_number +237677000555: remove it first.'));
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const form = await screen.findByRole('form', { name: 'Add a scenario' });
    const box = within(form).getByLabelText('Phone number or external id');
    // Written with spaces, as the payout form and the bulk file take it: sent digits only.
    await user.type(box, '+237 677 000 555');
    await user.click(within(form).getByRole('button', { name: 'Add scenario' }));
    expect(await screen.findByText('A scenario already steers +237 677 000 555.', { selector: 'strong' })).toBeTruthy();
    expect(api.callsOf('sandbox:addScenario')).toEqual([expect.objectContaining({ phone_number: '+237677000555' })]);
    expect(screen.queryByText(/does not fit this transaction/)).toBeNull();
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(box.getAttribute('aria-describedby') ?? '')?.textContent).toBe('A scenario already steers +237 677 000 555.');
  });

  it('says it in French too', async () => {
    const api = sandboxApi(() => fail('CONFLICT', 'Scenario scn_1 already steers phone_number +237677000555: remove it first.'));
    api.handlers['app:info'] = () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const });
    const user = userEvent.setup();
    render(<App api={api} stores={createStores(api, { screen: 'sandbox', journalId: null })} />);
    await screen.findByRole('navigation', { name: 'Écrans' });
    await screenLoaded();
    const form = await screen.findByRole('form', { name: 'Ajouter un scénario' });
    await user.type(within(form).getByRole('textbox'), '+237677000555');
    await user.click(within(form).getByRole('button', { name: /Ajouter/ }));
    expect(await screen.findByText('Un scénario pilote déjà +237677000555.', { selector: 'strong' })).toBeTruthy();
  });
});
