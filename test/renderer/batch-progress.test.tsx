/**
 * Sending never looks frozen (issue 16 item 6): progress pushes that carry a rate-limit wait show
 * "Waiting for the service's rate limit (N s)" counting down, with the wait in the time left; a
 * pause or cancel shows "Pausing…" / "Cancelling…" until the rows in flight have settled.
 * Fields of BatchProgress filled by the runner: waitingUntil, stopping, inFlight.
 */
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchProgress } from '../../shared/api';
import { honestSecondsLeft } from '../../renderer/src/screens/BatchProgress';
import { createBatchBackend, withLayout } from './batchFake';
import { createFakeApi, deferred, profile } from './fakeApi';
import { renderApp } from './render';

afterEach(cleanup);
const layout = withLayout();
beforeAll(layout.install);
afterAll(layout.remove);

const CSV = [
  'phone_number,amount,first_name,last_name,email,description',
  '+237650000001,10000,Awa,Nkemdirim,awa@example.com,Commission',
  '+237650000002,20000,Jean,Mbarga,jean@example.com,Advance',
  '+237650000005,30000,Chantal,Essomba,chantal@example.com,Refund',
].join('\n');

function progress(overrides: Partial<BatchProgress>): BatchProgress {
  return { batchId: 'b1', mode: 'send', state: 'sending', sent: 0, accepted: 0, failed: 0, unknown: 0, remaining: 3, ratePerSecond: 0, etaSeconds: null, final: 0, ...overrides };
}

async function sending() {
  const backend = createBatchBackend({});
  const api = createFakeApi(backend.handlers, [profile()]);
  const view = await renderApp(api, { screen: 'batches' });
  await view.user.upload(await screen.findByLabelText('CSV file of payouts'), new File([CSV], 'october.csv', { type: 'text/csv' }));
  await screen.findByRole('heading', { level: 1, name: 'october.csv' });
  await within(screen.getByRole('region', { name: 'Preview' })).findByText('60,750 XAF');
  await view.user.click(screen.getByRole('button', { name: 'Review and send' }));
  await view.user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: 'Send 3 payouts' }));
  await screen.findByRole('heading', { name: 'Sending' });
  return { ...view, api, backend };
}

/** The card's counter value under a label ("Time left"). */
function counter(label: string): string {
  const card = screen.getByRole('region', { name: /^Sending/ });
  const group = within(card).getByRole('group', { name: 'Batch progress' });
  const name = within(group).getByText(label);
  return name.nextElementSibling?.textContent ?? '';
}

describe('batch progress while the runner waits or stops', () => {
  it('counts the time left from the rows left and the rate, plus the rest of a wait', () => {
    expect(honestSecondsLeft({ remaining: 30, ratePerSecond: 2, etaSeconds: 2 }, 0)).toBe(15);
    expect(honestSecondsLeft({ remaining: 30, ratePerSecond: 2, etaSeconds: 2 }, 28)).toBe(43);
    expect(honestSecondsLeft({ remaining: 0, ratePerSecond: 2, etaSeconds: 0 }, 28)).toBeNull();
    expect(honestSecondsLeft({ remaining: 5, ratePerSecond: 0, etaSeconds: null }, 28)).toBeNull();
  });

  it('shows the rate-limit wait counting down, with the wait in the time left, and drops it when the wait ends', async () => {
    const { api } = await sending();
    const until = new Date(Date.now() + 30_000).toISOString();
    act(() => api.emit('batch:progress', progress({ sent: 1, accepted: 1, remaining: 2, ratePerSecond: 1, etaSeconds: 2, waitingUntil: until })));
    expect(await screen.findByText(/^Waiting for the service’s rate limit \((30|29) s\)$/)).toBeTruthy();
    expect(screen.getByRole('heading', { name: /^Sending.*Waiting$/ })).toBeTruthy();
    // 2 rows at 1 a second, after a ~30 s wait: not "about 2 seconds".
    expect(counter('Time left')).toMatch(/^about (32|31) seconds$/);
    act(() => api.emit('batch:progress', progress({ sent: 2, accepted: 2, remaining: 1, ratePerSecond: 1, etaSeconds: 1, waitingUntil: null })));
    await screen.findByText('about 1 second');
    expect(screen.queryByText(/rate limit/)).toBeNull();
  });

  it('says "Pausing…" at once when Pause is pressed, before main answers', async () => {
    const { user, api } = await sending();
    // Main holds the answer while the runner lets the rows in flight settle.
    const held = deferred<void>();
    const pauseHandler = api.handlers['batches:pause']!;
    api.handlers['batches:pause'] = async (input) => {
      await held.promise;
      return pauseHandler(input);
    };
    await user.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByText('Pausing… nothing more is sent; waiting for the rows already sent to be answered.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pause' })).toHaveProperty('disabled', true);
    held.resolve();
    expect(await screen.findByText('Paused. Payouts already sent keep settling.')).toBeTruthy();
  });

  it('says "Pausing…" from the runner until the rows in flight are answered, then "Paused"', async () => {
    const { api, backend } = await sending();
    // The runner writes `paused` first and reports `stopping` while the rows in flight settle.
    backend.update('b1', 'paused', (row) => row);
    act(() => api.emit('batch:progress', progress({ state: 'paused', sent: 2, accepted: 0, remaining: 1, ratePerSecond: 1, etaSeconds: 1, stopping: 'pause', inFlight: 2 })));
    expect(await screen.findByText('Pausing… nothing more is sent; waiting for 2 rows already sent to be answered.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: /^Sending.*Pausing…$/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pause' })).toHaveProperty('disabled', true);
    expect(counter('Time left')).toBe('—');
    expect(screen.queryByText('Paused. Payouts already sent keep settling.')).toBeNull();
    act(() => api.emit('batch:progress', progress({ state: 'paused', sent: 2, accepted: 2, remaining: 1, stopping: 'pause', inFlight: 1 })));
    expect(await screen.findByText('Pausing… nothing more is sent; waiting for 1 row already sent to be answered.')).toBeTruthy();
    act(() => api.emit('batch:progress', progress({ state: 'paused', sent: 2, accepted: 2, remaining: 1, stopping: null, inFlight: 0 })));
    expect(await screen.findByText('Paused. Payouts already sent keep settling.')).toBeTruthy();
    expect(screen.queryByText(/Pausing…/)).toBeNull();
  });

  it('says "Cancelling…" while the runner settles the rows in flight after Cancel remaining', async () => {
    const { api, backend } = await sending();
    backend.update('b1', 'cancelled', (row) => row);
    act(() => api.emit('batch:progress', progress({ state: 'cancelled', sent: 1, accepted: 0, remaining: 2, stopping: 'cancel', inFlight: 1 })));
    expect(await screen.findByText('Cancelling… nothing more is sent; waiting for the rows already sent to be answered.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: /^Sending.*Cancelling…$/ })).toBeTruthy();
  });
});
