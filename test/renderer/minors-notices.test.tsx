/** Issue 37 item 7: an error box says each thing once, and the service's own English words are quoted as such in French. */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorNotice } from '../../renderer/src/components/common';
import { applyLanguage } from '../../renderer/src/i18n';
import { english } from '../../shared/i18n/english';
import { createFakeApi, event, journal, ok } from './fakeApi';
import { screenLoaded } from './render';
import { App } from '../../renderer/src/App';
import { StoresContext, createStores } from '../../renderer/src/stores';
import type { ApiFailure } from '../../shared/api';

afterEach(async () => {
  cleanup();
  await applyLanguage('en');
});

/** An ErrorNotice inside the stores it reads (the team-keys action looks at the workspace). */
function notice(failure: ApiFailure, title?: string) {
  return render(
    <StoresContext.Provider value={createStores(createFakeApi(), { screen: 'overview', journalId: null })}>
      <ErrorNotice failure={failure} {...(title ? { title } : {})} />
    </StoresContext.Provider>,
  );
}

describe('an error box', () => {
  it('has no "Details:" when main’s message is the code’s own title and next step', async () => {
    await applyLanguage('en');
    const { title, next } = english.errors.WORKSPACE_UNREACHABLE;
    notice({ code: 'WORKSPACE_UNREACHABLE', message: `${title} ${next}` }, 'The team workspace is away');
    const alert = screen.getByRole('alert');
    expect(alert.textContent).not.toContain('Details:');
    expect(alert.textContent?.split(title).length).toBe(2);
  });

  it('has no "Details:" repeating the screen’s title, quotes and apostrophes aside', async () => {
    await applyLanguage('en');
    notice({ code: 'SOMETHING_NEW', message: "The export's file could not be written" }, "The export’s file could not be written.");
    expect(screen.getByRole('alert').textContent).not.toContain('Details:');
  });

  it('keeps the details that add to the title, and only what they add', async () => {
    await applyLanguage('en');
    const { title } = english.errors.WORKSPACE_OTHER;
    notice({ code: 'WORKSPACE_OTHER', message: `${title} relation "paydesk_x" does not exist` });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Details: relation "paydesk_x" does not exist');
    expect(alert.textContent?.split(title).length).toBe(2);
  });

  it('in French, quotes the service’s English words with a label, under a French sentence', async () => {
    await applyLanguage('fr');
    notice({ code: 'GATEWAY_HICCUP', message: 'Upstream gateway timeout' });
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Un problème est survenu.')).toBeTruthy();
    const quote = within(alert).getByText('Upstream gateway timeout');
    expect(quote.tagName).toBe('Q');
    expect(quote.getAttribute('lang')).toBe('en');
    expect(quote.parentElement?.textContent?.replace(/\u00a0/g, ' ')).toBe('Message d’origine (en anglais) : Upstream gateway timeout');
  });
});

describe('a timeline event', () => {
  it('in French, shows the service’s own message as a labelled English quote', async () => {
    const api = createFakeApi({
      'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: 'local', allowLive: true, language: 'fr' as const, theme: 'system' as const }),
      'transactions:get': () =>
        ok({
          transaction: journal({ kind: 'payout', status: 'processing' }),
          timeline: [event(1, '2026-11-21T10:00:00.000Z', { type: 'status_seen', status: 'processing', message: 'Operator queue is congested, retrying' })],
        }),
    });
    render(<App api={api} stores={createStores(api, { screen: 'timeline', journalId: 'j1' })} />);
    await screen.findByRole('navigation', { name: 'Écrans' });
    await screenLoaded();
    const quote = await screen.findByText('Operator queue is congested, retrying');
    expect(quote.tagName).toBe('Q');
    expect(quote.getAttribute('lang')).toBe('en');
    expect(quote.closest('.event-detail')?.textContent).toMatch(/^Message d’origine \(en anglais\)/);
  });
});
