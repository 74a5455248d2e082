/** The Copy button says so when the clipboard refuses (Electron denied the permission, or a browser did). */
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TransactionDetail } from '../../shared/api';
import { createFakeApi, journal, ok } from './fakeApi';
import { renderApp } from './render';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function detail(): TransactionDetail {
  return { transaction: journal({}), timeline: [] };
}

describe('Copy button', () => {
  it('copies the value and says Copied', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()) });
    const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const button = await screen.findByRole('button', { name: 'Copy external id' });
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(button);
    expect(write).toHaveBeenCalledWith(journal({}).externalId);
    expect(button.textContent).toBe('Copied');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a refused clipboard write says it was not copied, instead of staying silent', async () => {
    const api = createFakeApi({ 'transactions:get': () => ok(detail()) });
    const { user } = await renderApp(api, { screen: 'timeline', journalId: 'j1' });
    const button = await screen.findByRole('button', { name: 'Copy external id' });
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new DOMException('Write permission denied.', 'NotAllowedError'));
    await user.click(button);
    expect((await screen.findByRole('alert')).textContent).toBe('Not copied: the clipboard refused. Select the text and copy it by hand.');
    expect(button.textContent).toBe('Copy');
  });
});
