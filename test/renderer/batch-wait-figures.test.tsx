/**
 * The progress panel says what is really happening (issue 26 items 1, 4 and 5): a wait names what
 * the service said (maintenance or its rate limit, until when), in English and French; a batch
 * reopened mid-wait shows the wait at once (from its detail); the rate is a count over a stated
 * window; the Failed and Outcome unknown lists hold what their counters count; the report's
 * summary comes from the same snapshot as the counters.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchProgress, ServiceWait } from '../../shared/api';
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

const CSV = [
  'phone_number,amount,first_name,last_name,email,description',
  '+237650000001,10000,Awa,Nkemdirim,awa@example.com,Commission',
  '+237650000002,20000,Jean,Mbarga,jean@example.com,Advance',
  '+237650000005,30000,Chantal,Essomba,chantal@example.com,Refund',
].join('\n');

const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ');

function progress(overrides: Partial<BatchProgress>): BatchProgress {
  return { batchId: 'b1', mode: 'send', state: 'sending', sent: 0, accepted: 0, failed: 0, unknown: 0, remaining: 3, ratePerSecond: 0, etaSeconds: null, final: 0, ...overrides };
}

function maintenance(seconds: number): ServiceWait {
  return { until: new Date(Date.now() + seconds * 1000).toISOString(), httpStatus: 503, code: 'MAINTENANCE_MODE', message: 'The service is temporarily offline for maintenance. Try again later.' };
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

const card = () => screen.getByRole('region', { name: /^Sending/ });
function counter(label: string): string {
  const group = within(card()).getByRole('group', { name: 'Batch progress' });
  return within(group).getByText(label).nextElementSibling?.textContent ?? '';
}
const sentShown = (n: string) => waitFor(() => expect(counter('Sent')).toBe(n));

describe('what the service said while a batch waits', () => {
  it('names maintenance and its end for a 503, in English and in French', async () => {
    const { api } = await sending();
    const wait = maintenance(60);
    act(() => api.emit('batch:progress', progress({ sent: 1, unknown: 1, remaining: 2, waitingUntil: wait.until, waitingFor: wait })));
    const notice = await within(card()).findByText(/^The service is offline for maintenance until .+ \((60|59) s left\)$/);
    expect(notice.parentElement?.textContent).toContain('The service answered HTTP 503 MAINTENANCE_MODE: “The service is temporarily offline for maintenance. Try again later.”');
    expect(card().textContent).not.toMatch(/rate limit|slow down/);
    await act(() => applyLanguage('fr'));
    const french = await screen.findByText((_, element) => element?.classList.contains('batch-waiting') === true && /^Le service est en maintenance jusqu’à .+ \(encore (60|59) s\)$/.test(plain(element.textContent)));
    expect(plain(french.parentElement?.textContent)).toContain('Le service a répondu HTTP 503 MAINTENANCE_MODE : « The service');
  });

  it('names the rate limit and its end for a 429', async () => {
    const { api } = await sending();
    const wait: ServiceWait = { ...maintenance(20), httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests.' };
    act(() => api.emit('batch:progress', progress({ sent: 1, accepted: 1, remaining: 2, waitingUntil: wait.until, waitingFor: wait })));
    await within(card()).findByText(/^The service’s rate limit: no payout is sent until .+ \((20|19) s left\)$/);
    expect(card().textContent).toContain('HTTP 429 RATE_LIMIT_EXCEEDED: “Too many requests.”');
  });

  it('shows the wait at once when a batch is reopened mid-wait (no push yet)', async () => {
    const { api, stores } = await sending();
    const wait = maintenance(40);
    const get = api.handlers['batches:get']!;
    api.handlers['batches:get'] = async (input) => {
      const answer = await get(input);
      return answer.ok ? ok({ ...answer.value, wait }) : answer;
    };
    act(() => stores.batch.getState().close());
    await act(() => stores.batch.getState().open('b1'));
    await within(await screen.findByRole('region', { name: /^Sending/ })).findByText(/^The service is offline for maintenance until .+ \((40|39) s left\)$/);
  });
});

describe('the counters, the rate and the lists agree', () => {
  it('states the rate as rows answered over the last minute, or since the start, never a burst extrapolated', async () => {
    const { api } = await sending();
    act(() => api.emit('batch:progress', progress({ sent: 2, accepted: 2, remaining: 1, ratePerSecond: 0, answeredInWindow: 2, rateWindowSeconds: 0 })));
    await sentShown('2');
    expect(counter('Rate')).toBe('—');
    act(() => api.emit('batch:progress', progress({ sent: 2, accepted: 2, remaining: 1, ratePerSecond: 0.2, answeredInWindow: 2, rateWindowSeconds: 12 })));
    await within(card()).findByText('2 in 12 s');
    act(() => api.emit('batch:progress', progress({ sent: 3, accepted: 3, remaining: 0, ratePerSecond: 0.05, answeredInWindow: 3, rateWindowSeconds: 60 })));
    await within(card()).findByText('3 in the last minute');
  });

  it('lists the unknown rows apart from the failed ones, each filter with its counter’s number', async () => {
    const { api } = await sending();
    act(() => api.emit('batch:progress', progress({ sent: 3, unknown: 3, remaining: 0 })));
    await sentShown('3');
    expect(counter('Failed')).toBe('0');
    const filters = screen.getByRole('group', { name: 'Show' });
    expect(within(filters).getByRole('radio', { name: 'Failed (0)' })).toBeTruthy();
    expect(within(filters).getByRole('radio', { name: 'Outcome unknown (3)' })).toBeTruthy();
  });

  it('says "processing" in the report from the same snapshot as Sent', async () => {
    const { api } = await sending();
    act(() => api.emit('batch:progress', progress({ sent: 0, remaining: 3, processing: 0, inFlight: 0 })));
    await sentShown('0');
    expect(screen.getByRole('region', { name: 'Report' }).textContent).toContain('0 completed, 0 failed, 0 unknown, 0 processing');
    act(() => api.emit('batch:progress', progress({ sent: 3, accepted: 2, completed: 1, failed: 1, remaining: 0, processing: 1, inFlight: 0, final: 2 })));
    await sentShown('3');
    expect(screen.getByRole('region', { name: 'Report' }).textContent).toContain('1 completed, 1 failed, 0 unknown, 1 processing');
  });
});
