/** Renders the whole app on one screen against a fake API, as the component tests need it. */
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../../renderer/src/App';
import { createStores } from '../../renderer/src/stores';
import type { Screen } from '../../renderer/src/stores/ui';
import type { FakeApi } from './fakeApi';

/** Screens are loaded on demand (React.lazy): ready once the open screen's heading is drawn. */
export async function screenLoaded(): Promise<void> {
  await waitFor(() => {
    if (!document.querySelector('main h1')) throw new Error('the screen has not loaded yet');
  });
}

export async function renderApp(api: FakeApi, initial: { screen: Screen; journalId?: string; params?: Record<string, string> }) {
  const stores = createStores(api, { screen: initial.screen, journalId: initial.journalId ?? null });
  // An address's parameters (`#/history?status=failed`), as the router gives them at start.
  if (initial.params) stores.ui.getState().goTo({ screen: initial.screen, journalId: initial.journalId ?? null, params: initial.params });
  const user = userEvent.setup();
  const view = render(<App api={api} stores={stores} />);
  // Ready once the profiles have loaded and the screen's heading is on.
  await screen.findByRole('navigation', { name: 'Screens' });
  await screen.findByRole('status', { name: /Environment:/ });
  await screenLoaded();
  return { ...view, stores, user };
}
