/**
 * The Sandbox screen's service variants card (issue 35 item 4): a checkbox per variant with its
 * description, the reset-every number, Apply and Turn all off, the line saying which are on, a bad
 * number refused at its field before anything is sent, and the card in French.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_VARIANTS, type SandboxStatus, type SandboxVariants } from '../../shared/api';
import { applyLanguage } from '../../renderer/src/i18n';
import { createFakeApi, fail, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

function setup() {
  let variants: SandboxVariants = { enabled: [], resetEvery: 1 };
  const engine: SandboxStatus = { running: true, url: 'http://127.0.0.1:4010', keys: [], maintenance: false, settleMs: 2000, webhookUrl: null, clockOffsetSeconds: 0, error: null };
  return createFakeApi({
    'sandbox:status': () => ok(engine),
    'sandbox:wallet': () => ok({ balances: [{ environment: 'sandbox', balance: 1_000, currency: 'XAF' }], ledger: [] }),
    'sandbox:deliveries': () => ok({ deliveries: [], nextCursor: null }),
    'sandbox:scenarios': () => ok({ scenarios: [] }),
    'sandbox:variants': () => ok(variants),
    'sandbox:setVariants': (input) => {
      if (input.resetEvery === 7) return fail('INVALID_INPUT', 'Invalid input for sandbox:setVariants.', { resetEvery: ['must be at most 1000'] });
      const wanted = new Set(input.enabled);
      variants = { enabled: SANDBOX_VARIANTS.filter((name) => wanted.has(name)), resetEvery: input.resetEvery ?? 1 };
      return ok(variants);
    },
  });
}

async function openCard() {
  return (await screen.findByRole('heading', { name: 'Service variants' })).closest('.card') as HTMLElement;
}

describe('Sandbox: service variants', () => {
  it('lists each variant with its description, applies the ones ticked, says which are on, and turns all off', async () => {
    const api = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const card = await openCard();
    expect(within(card).getByText(/These change how the local sandbox answers where the spec leaves the choice open/)).toBeTruthy();
    expect(within(card).getAllByRole('checkbox')).toHaveLength(SANDBOX_VARIANTS.length);
    await within(card).findByText('All off: the local sandbox answers the default way.');
    const created201 = within(card).getByRole('checkbox', { name: '201 for a create' });
    expect(created201.getAttribute('aria-describedby')).toBe('variant-created-201-description');
    expect(document.getElementById('variant-created-201-description')?.textContent).toBe('A successful create answers HTTP 201 instead of 200.');
    // The reset number waits for its variant.
    expect((within(card).getByLabelText('Reset every Nth create (1: each one)') as HTMLInputElement).disabled).toBe(true);
    expect(within(card).getByRole('button', { name: 'Turn all off' })).toHaveProperty('disabled', true);

    await user.click(within(card).getByRole('checkbox', { name: 'Connection reset after a create' }));
    await user.click(created201);
    const every = within(card).getByLabelText('Reset every Nth create (1: each one)');
    await user.clear(every);
    await user.type(every, '3');
    await user.click(within(card).getByRole('button', { name: 'Apply' }));
    await within(card).findByText('On: 201 for a create, Connection reset after a create (every 3 creates).');
    expect(api.callsOf('sandbox:setVariants')).toEqual([{ enabled: ['created-201', 'reset-after-create'], resetEvery: 3 }]);
    expect(within(card).getByRole('checkbox', { name: '201 for a create' })).toHaveProperty('checked', true);

    await user.click(within(card).getByRole('button', { name: 'Turn all off' }));
    await within(card).findByText('All off: the local sandbox answers the default way.');
    expect(api.callsOf('sandbox:setVariants').at(-1)).toEqual({ enabled: [] });
    expect(within(card).getByRole('checkbox', { name: '201 for a create' })).toHaveProperty('checked', false);
  });

  it('refuses a reset number out of range at its field, and shows the engine’s refusal there too', async () => {
    const api = setup();
    const { user } = await renderApp(api, { screen: 'sandbox' });
    const card = await openCard();
    await user.click(within(card).getByRole('checkbox', { name: 'Connection reset after a create' }));
    const every = within(card).getByLabelText('Reset every Nth create (1: each one)');
    await user.clear(every);
    await user.type(every, '0');
    await user.click(within(card).getByRole('button', { name: 'Apply' }));
    expect(every.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(every.getAttribute('aria-describedby')!)?.textContent).toBe('Give a whole number from 1 to 1,000.');
    expect(api.callsOf('sandbox:setVariants')).toEqual([]);

    await user.clear(every);
    await user.type(every, '7');
    await user.click(within(card).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(document.getElementById(every.getAttribute('aria-describedby')!)?.textContent).toBe('must be at most 1000'));
    expect(every.getAttribute('aria-invalid')).toBe('true');
  });

  it('speaks French', async () => {
    const api = setup();
    await renderApp(api, { screen: 'sandbox' });
    const card = await openCard();
    await act(() => applyLanguage('fr'));
    await waitFor(() => expect(within(card).getByRole('heading').textContent).toBe('Variantes du service'));
    expect(plain(card.textContent)).toContain('Toutes désactivées : le bac à sable local répond de la façon par défaut.');
    expect(within(card).getByRole('checkbox', { name: '201 pour une création' })).toBeTruthy();
    expect(within(card).getByRole('button', { name: 'Tout désactiver' })).toBeTruthy();
  });
});
