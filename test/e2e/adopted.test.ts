/**
 * What the status alone does not say, in Chromium (issue 23, review): a payout adopted under an
 * external id whose payout at the service is not what was asked (single send's result, History,
 * a batch row, the batch's report); History's marks for adopted entries (a refusal sent again is
 * the same record now: nothing is "paid later"); a batch whose failed rows were all retried offers no
 * retry and says where they went. English and French, light and dark, no serious axe finding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Result } from '../../shared/api';
import type { TransactionRequest } from '../../shared/contract';
import { getSummary } from '../../electron/console/batch/store';
import { until } from '../console/batch-helpers';
import { axeViolations, serious } from './axe';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let adoptedId = '';

const customer = { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' };
const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';

function ok<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

async function sendPayout(request: TransactionRequest): Promise<Result<{ id: string }>> {
  const { handlers } = h.runtime;
  const quote = ok(await handlers['payouts:prepare']({ request }));
  return handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

/** Resolves once the batch is done and every row has a final status (on the runtime's push events). */
function settled(batchId: string): Promise<void> {
  return until(h.runtime, ['batch:progress', 'transaction:changed'], () => {
    const { state, counts } = getSummary(h.runtime.journal, batchId)!;
    return state === 'done' && counts.processing === 0 && counts.pending === 0 && counts.unknown === 0;
  });
}

/** Imports, confirms and sends a batch; resolves once every row has a final status. */
async function sendBatch(fileName: string, text: string, acceptDuplicateFile = false): Promise<string> {
  const { handlers } = h.runtime;
  const batchId = ok(await handlers['batches:import']({ fileName, text, paymentMethod: 'momo_cm' })).batch.id;
  const prepared = ok(await handlers['batches:prepare']({ batchId, ...(acceptDuplicateFile ? { acceptDuplicateFile: true as const } : {}) }));
  ok(await handlers['batches:start']({ batchId, confirmationToken: prepared.confirmationToken }));
  await settled(batchId);
  return batchId;
}

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  // A payout made outside this console (the merchant's own system: the journal never saw it), then a
  // request under its external id to someone else for more: the service says it exists; adopted, not as asked.
  ok(await sendPayout({ payment_method: 'momo_cm', amount: 1000, phone_number: '+237671000001', external_id: 'E2E-ADOPT-1', customer }));
  h.runtime.journal.prepare(`DELETE FROM entries WHERE external_id = 'E2E-ADOPT-1'`).run();
  adoptedId = ok(await sendPayout({ payment_method: 'momo_cm', amount: 2500, phone_number: '+237671000002', external_id: 'E2E-ADOPT-1', customer })).id;
  // A batch whose rows' ids were paid earlier: the first as it asks, the second for another amount.
  ok(await sendPayout({ payment_method: 'momo_cm', amount: 300, phone_number: '+237672000001', external_id: 'E2E-ROW-A', customer: { first_name: 'Jean', last_name: 'Mbarga', email: 'jean@example.com' } }));
  ok(await sendPayout({ payment_method: 'momo_cm', amount: 999, phone_number: '+237672000002', external_id: 'E2E-ROW-B', customer }));
  await sendBatch('adopting.csv', `${HEADER}\n+237672000001,300,Jean,Mbarga,jean@example.com,Prime,E2E-ROW-A\n+237672000002,301,Marie,Ngo,marie@example.com,Prime,E2E-ROW-B\n`, true);
  // A batch with a failing row, retried (to a number that completes) and sent: nothing left to retry.
  const failing = await sendBatch('chain.csv', `${HEADER}\n+237650000002,700,Paul,Essomba,paul@example.com,Prime,E2E-CH-0\n`);
  const retry = ok(await h.runtime.handlers['batches:retryFailed']({ batchId: failing })).batch.id;
  ok(await h.runtime.handlers['batches:updateRow']({ batchId: retry, rowNumber: 2, values: { phone_number: '+237683000009' } }));
  const prepared = ok(await h.runtime.handlers['batches:prepare']({ batchId: retry }));
  ok(await h.runtime.handlers['batches:start']({ batchId: retry, confirmationToken: prepared.confirmationToken }));
  await settled(retry);
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const go = (hash: string) => page.evaluate((to) => (location.hash = to), hash);
const nav = (name: string, screen: string) => page.getByRole('navigation', { name }).getByRole('button', { name: screen }).click();

async function openBatch(name: string, label: RegExp) {
  const back = page.getByRole('button', { name: label });
  if (await back.count()) await back.click();
  await page.getByRole('button', { name }).click();
}

describe('adopted, not as asked, and refused then paid, in English', () => {
  it('warns on the single send\'s result (its transaction screen): where the earlier payout went, and what was asked', async () => {
    await go(`#/timeline/${encodeURIComponent(adoptedId)}`);
    const notice = page.getByTestId('adopted-differs');
    await notice.getByText(/^Already sent earlier — to \+2376\*+0001, .*1[ ,.\u202f\u00a0]?000.* — not what this payout asked \(\+237671000002, .*2[ ,.\u202f\u00a0]?500.*\)$/).waitFor();
    await page.getByTestId('already-sent').getByText(/not what this payout asked/).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-1-single-result');
  });

  it('marks adopted entries in History\'s list', async () => {
    await go('#/history?text=E2E-');
    const list = page.getByRole('region', { name: /transactions/i });
    await list.getByTestId('history-adopted-differs').first().waitFor();
    await expect.poll(() => list.getByTestId('history-adopted-differs').allTextContents()).toContain('Sent earlier — not as asked');
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-2-history');
  });

  it('warns on the batch row and counts such rows in the report', async () => {
    await nav('Screens', 'Bulk payouts');
    await openBatch('Open batch adopting.csv, Done', /All batches/);
    await page.getByTestId('adopted-differing').getByText('1 row was already sent earlier to another recipient or for another amount: it was not paid as this file asks.').waitFor();
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    await table.getByTestId('adopted-differs').getByText(/^Already sent earlier — to \+2376\*+0002, .* — not what this row asks \(\+237672000002, .*\)$/).waitFor();
    await table.getByTestId('already-sent').first().waitFor(); // the row sent as asked: only "already sent earlier"
    expect(serious(await axeViolations(page))).toEqual([]);
    await table.getByTestId('adopted-differs').scrollIntoViewIfNeeded();
    await screenshot(page, 'adopted-4-batch');
  });

  it('offers no retry when every failed row was retried, and says in which batch', async () => {
    await openBatch('Open batch chain.csv, Done', /All batches/);
    const notice = page.getByTestId('retried-all');
    await notice.getByText('The failed row was retried in the batch “chain (retry 1).csv” (Done): nothing is left to retry here.').waitFor();
    expect(await page.getByRole('button', { name: /^Retry the/ }).count()).toBe(0);
    await screenshot(page, 'adopted-5-retried-all');
    await notice.getByRole('button', { name: 'Open the retry batch' }).click();
    await page.getByRole('heading', { level: 1, name: 'chain (retry 1).csv' }).waitFor();
  });
});

describe('in French and the dark theme', () => {
  it('reads in French, dark and light, with no serious axe finding', async () => {
    await nav('Screens', 'Settings');
    await page.getByLabel('Language').selectOption('fr');
    await go(`#/timeline/${encodeURIComponent(adoptedId)}`);
    await page.getByTestId('adopted-differs').getByText(/^Déjà envoyé auparavant — à \+2376\*+0001, .* — pas ce que demandait ce transfert \(\+237671000002, .*\)$/).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-6-single-fr');
    await nav('Écrans', 'Paramètres');
    await page.locator('#theme-choice').selectOption('dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await go(`#/timeline/${encodeURIComponent(adoptedId)}`);
    await page.getByTestId('adopted-differs').waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-7-single-fr-dark');
    await go('#/history?text=E2E-');
    await page.getByTestId('history-adopted-differs').first().waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-8-history-fr-dark');
    await nav('Écrans', 'Transferts groupés');
    await openBatch('Ouvrir le lot adopting.csv, Terminé', /Tous les lots/);
    await page.getByTestId('adopted-differing').getByText(/^1 ligne avait déjà été envoyée auparavant/).waitFor();
    await page.getByTestId('adopted-differs').getByText(/^Déjà envoyé auparavant — à \+2376\*+0002/).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await page.getByTestId('adopted-differs').scrollIntoViewIfNeeded();
    await screenshot(page, 'adopted-10-batch-fr-dark');
    await openBatch('Ouvrir le lot chain.csv, Terminé', /Tous les lots/);
    await page.getByTestId('retried-all').getByText(/^La ligne en échec a été relancée dans le lot « chain \(retry 1\)\.csv » \(Terminé\)/).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-11-retried-all-fr-dark');
    await nav('Écrans', 'Paramètres');
    await page.locator('#theme-choice').selectOption('light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await nav('Écrans', 'Transferts groupés');
    await page.getByTestId('adopted-differs').or(page.getByTestId('retried-all')).first().waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-12-batch-fr-light');
    await go('#/history?text=E2E-');
    await page.getByTestId('history-adopted-differs').first().waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'adopted-13-history-fr-light');
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
