/**
 * Team profiles live (docs/decisions/team-profiles-live.md), the screen's half: desktop B's console
 * pushes `profiles:changed` once it read a colleague admin's change, and B's profile picker lists
 * the new team profile without a restart, then drops it when it is removed. The console's half
 * (the push after a change on another desktop) is test/console/team-profiles-live.test.ts.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeApi, ok, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);

describe("a team profile an admin changed on another desktop", () => {
  it("shows in this desktop's profile picker when the console pushes profiles:changed, and goes when removed", async () => {
    const team = profile({ id: 'team-live', name: 'Team live sandbox', builtIn: false, scope: 'team' });
    let listed = [profile()];
    const api = createFakeApi({ 'profiles:list': () => ok({ profiles: listed, activeId: 'local' }) });
    await renderApp(api, { screen: 'overview' });
    const picker = await screen.findByRole('combobox', { name: /active profile/i });
    expect(within(picker).queryByRole('option', { name: /Team live sandbox/ })).toBeNull();

    listed = [profile(), team];
    act(() => api.emit('profiles:changed', { activeId: 'local' }));
    expect(await within(picker).findByRole('option', { name: /Team live sandbox/ })).toBeTruthy();

    listed = [profile()];
    act(() => api.emit('profiles:changed', { activeId: 'local' }));
    await waitFor(() => expect(within(picker).queryByRole('option', { name: /Team live sandbox/ })).toBeNull());
  });
});
