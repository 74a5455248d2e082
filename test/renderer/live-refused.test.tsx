/**
 * Issue 9, item 6: a live profile in a host that refuses live (the browser host without
 * --allow-live) says so up front, on the profile, the marker and the forms, and nothing can be sent.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeApi, fail, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

const live = profile({ id: 'acme', name: 'Acme live', environment: 'live', builtIn: false });

function refusingHost() {
  return createFakeApi(
    {
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'acme', allowLive: false, language: 'system' as const, theme: 'system' as const }),
      'balance:get': () => fail('LIVE_REFUSED', '"Acme live" is a live profile, and this console was started without allowing live profiles (--allow-live).'),
    },
    [live, profile()],
  );
}

describe('a live profile in a host that refuses live', () => {
  it('the marker says live is refused here', async () => {
    await renderApp(refusingHost(), { screen: 'payment' });
    const marker = screen.getByRole('status', { name: /Environment: LIVE, refused in this browser host/ });
    expect(marker.textContent).toBe('LIVE · refused in this browser host');
  });

  it('the payout screen says so before anything is typed, shows no raw code, and cannot be sent', async () => {
    const api = refusingHost();
    await renderApp(api, { screen: 'payout' });
    const form = screen.getByRole('form', { name: 'New payout' });
    expect(within(form).getByRole('alert', { name: /This browser host refuses live profiles/ })).toBeTruthy();
    expect(within(form).getByRole('button', { name: 'Review payout' })).toHaveProperty('disabled', true);
    expect(await screen.findByText('No balance: this browser host does not connect to live profiles.')).toBeTruthy();
    expect(document.body.textContent).not.toContain('LIVE_REFUSED');
    expect(api.callsOf('payouts:prepare')).toEqual([]);
  });

  it('the payment form says so too, and its button is off', async () => {
    await renderApp(refusingHost(), { screen: 'payment' });
    expect(screen.getByRole('alert', { name: /This browser host refuses live profiles/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Request payment' })).toHaveProperty('disabled', true);
  });

  it('the live profile in Settings says this host refuses it, and so does the form when live is chosen', async () => {
    const { user } = await renderApp(refusingHost(), { screen: 'settings' });
    expect(await screen.findByText('refused here')).toBeTruthy();
    expect(screen.getByText(/with this profile nothing can be sent or read here/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Add profile' }));
    const form = screen.getByRole('form', { name: 'New profile' });
    expect(within(form).queryByText(/refuses live profiles/)).toBeNull();
    await user.selectOptions(within(form).getByLabelText('Environment'), 'live');
    expect(within(form).getByText(/refuses live profiles/)).toBeTruthy();
  });

  it('a host that allows live says nothing of the kind', async () => {
    const api = createFakeApi({}, [live]);
    await renderApp(api, { screen: 'payout' });
    expect(screen.getByRole('status', { name: 'Environment: LIVE, real money' })).toBeTruthy();
    expect(screen.queryByText(/refuses live profiles/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Review payout' })).toHaveProperty('disabled', false);
  });
});
