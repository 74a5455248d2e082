import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../shared/api';
import { createFakeApi, fail, journal, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
beforeEach(() => localStorage.clear());

describe('Lookup', () => {
  it('says "not found in <environment> for <profile>" for an unknown id, not an error box', async () => {
    const api = createFakeApi({ 'transactions:lookup': () => ok({ found: false as const, environment: 'sandbox', profileName: 'Local sandbox' }) });
    const { user } = await renderApp(api, { screen: 'lookup' });
    await user.click(screen.getByRole('radio', { name: 'External id' }));
    await user.type(screen.getByRole('searchbox', { name: 'External id' }), 'order-42{Enter}');
    expect(await screen.findByText('Payment with external id “order-42” not found in sandbox for Local sandbox.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.callsOf('transactions:lookup')).toEqual([{ id: 'order-42', by: 'external_id', kind: 'payment' }]);
  });

  it('remembers the id type toggle and opens the timeline of a found transaction', async () => {
    const api = createFakeApi({
      'transactions:lookup': () => ok({ found: true as const, transaction: journal({ id: 'j7' }), source: 'service' as const }),
      'transactions:get': () => ok({ transaction: journal({ id: 'j7' }), timeline: [] }),
    });
    const first = await renderApp(api, { screen: 'lookup' });
    await first.user.click(screen.getByRole('radio', { name: 'External id' }));
    first.unmount();
    const { user } = await renderApp(api, { screen: 'lookup' });
    expect(screen.getByRole('radio', { name: 'External id' })).toHaveProperty('checked', true);
    await user.type(screen.getByRole('searchbox', { name: 'External id' }), 'ext-1');
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByRole('heading', { level: 1, name: '25,000 XAF' })).toBeTruthy();
  });

  it('says a payout was found in the team’s journal (a colleague’s), never "not found"', async () => {
    const api = createFakeApi({
      'transactions:lookup': () => ok({ found: true as const, transaction: journal({ id: 'j9', kind: 'payout' }), source: 'team_journal' as const }),
      'transactions:get': () => ok({ transaction: journal({ id: 'j9', kind: 'payout' }), timeline: [] }),
    });
    const { user } = await renderApp(api, { screen: 'lookup' });
    await user.click(screen.getByRole('radio', { name: 'Payout' }));
    await user.click(screen.getByRole('radio', { name: 'External id' }));
    await user.type(screen.getByRole('searchbox', { name: 'External id' }), 'TEAM-1{Enter}');
    expect(await screen.findByText(/^Found in the team’s journal/)).toBeTruthy();
    expect(screen.queryByText(/not found/)).toBeNull();
  });

  it('asks for an id instead of sending an empty lookup', async () => {
    const api = createFakeApi();
    const { user } = await renderApp(api, { screen: 'lookup' });
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(screen.getByText('Enter an id to look up.')).toBeTruthy();
    expect(api.callsOf('transactions:lookup')).toHaveLength(0);
  });
});

describe('Settings', () => {
  it('takes a secret once in a password field and keeps it in no DOM node afterwards', async () => {
    const secret = 'sk_live_payment_topsecret_123456';
    let profiles: Profile[] = [profile(), profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false, hasPaymentSecret: false, hasPayoutSecret: false })];
    const api = createFakeApi({
      'profiles:list': () => ok({ profiles, activeId: 'local' }),
      'secrets:set': (input) => {
        profiles = profiles.map((p) => (p.id === input.profileId ? { ...p, hasPaymentSecret: true } : p));
        return ok({ stored: true as const });
      },
    });
    const { user, container } = await renderApp(api, { screen: 'settings' });
    await user.click(await screen.findByRole('button', { name: /Acme live/ }));
    const field = screen.getByLabelText('Payment secret key') as HTMLInputElement;
    expect(field.type).toBe('password');
    await user.type(field, secret);
    await user.click(screen.getByRole('button', { name: 'Save payment secret' }));
    expect(await screen.findByRole('button', { name: 'Replace payment secret' })).toBeTruthy();
    expect(screen.getAllByText('Stored in the keychain').length).toBeGreaterThan(0);
    expect(container.innerHTML).not.toContain(secret);
    const values = [...container.querySelectorAll('input')].map((input) => input.value);
    expect(values.join('|')).not.toContain(secret);
    expect(api.callsOf('secrets:set')).toEqual([{ profileId: 'acme', keyType: 'payment', secret }]);
  });

  it('validates a new profile locally and shows the handler’s field errors next to fields', async () => {
    const api = createFakeApi({ 'profiles:save': () => fail('INVALID_INPUT', 'bad', { name: ['is already used by another profile'] }) });
    const { user } = await renderApp(api, { screen: 'settings' });
    await user.click(screen.getByRole('button', { name: 'Add profile' }));
    const form = screen.getByRole('form', { name: 'New profile' });
    await user.clear(within(form).getByLabelText('Base URL'));
    await user.type(within(form).getByLabelText('Base URL'), 'ftp://x');
    await user.click(within(form).getByRole('button', { name: 'Save profile' }));
    expect(within(form).getByText('must be an http(s) URL')).toBeTruthy();
    expect(api.callsOf('profiles:save')).toHaveLength(0);
    await user.type(within(form).getByLabelText('Name'), 'Acme');
    await user.clear(within(form).getByLabelText('Base URL'));
    await user.type(within(form).getByLabelText('Base URL'), 'https://api.example.com');
    await user.click(within(form).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(within(form).getByText('is already used by another profile')).toBeTruthy());
  });

  it('switches profile and the window shows the live marker', async () => {
    let activeId = 'local';
    const profiles = [profile(), profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false })];
    const api = createFakeApi({
      'profiles:list': () => ok({ profiles, activeId }),
      'profiles:activate': (input) => {
        activeId = input.id;
        return ok(profiles.find((p) => p.id === input.id)!);
      },
    });
    const { user } = await renderApp(api, { screen: 'settings' });
    expect(screen.getByRole('status', { name: 'Environment: sandbox, test money' }).textContent).toContain('SANDBOX');
    await user.click(screen.getByRole('button', { name: /Acme live/ }));
    await user.click(screen.getByRole('button', { name: 'Switch to Acme live' }));
    const marker = await screen.findByRole('status', { name: 'Environment: LIVE, real money' });
    expect(marker.textContent).toContain('LIVE');
  });
});
