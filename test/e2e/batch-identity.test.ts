/**
 * A cancelled batch in Chromium (issue 23 item 2, issue 26 item 6): the batch says its remaining
 * rows will not be sent and how to send them; the same file imported again names the rows already
 * sent; "Send the N remaining rows…" makes a new batch of exactly those rows with their own
 * external ids, confirmed through the usual dialog (count, total, fees), and each row is paid once;
 * the re-imported file's sent rows, sent as new payouts (issue 35 item 2), are paid again under new
 * ids listed old → new before they are written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { batchFigures } from '../../shared/api';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { axeViolations, serious } from './axe';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let dir: string;
let batchId: string;
let remaining: number;
const ROWS = 12;
const text = [
  'phone_number,amount,first_name,last_name,email,description',
  ...Array.from({ length: ROWS }, (_, index) => `+23767${String(index + 1).padStart(7, '0')},${1000 + index},Person${index},Identity,p${index}@example.com,Prime ${index}`),
].join('\n');

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  dir = mkdtempSync(join(tmpdir(), 'paydesk-identity-e2e-'));
  writeFileSync(join(dir, 'primes.csv'), `${text}\n`, 'utf8');
  // The batch is sent and cancelled after its first row through the handlers (a click cannot be
  // timed between two rows); everything after that is done on the screen. A rate limit of 6 a
  // minute makes the service ask the batch to wait after a few rows, so the cancel always lands
  // with rows left, however fast the machine.
  const { handlers } = h.runtime;
  const control = h.runtime.engine!.control;
  const perMinute = control.settings().rateLimitPerKeyPerMinute;
  control.setRateLimit(6);
  const imported = await handlers['batches:import']({ fileName: 'primes.csv', text: `${text}\n`, paymentMethod: 'momo_cm' });
  if (!imported.ok) throw new Error(imported.error.message);
  batchId = imported.value.batch.id;
  const prepared = await handlers['batches:prepare']({ batchId });
  if (!prepared.ok) throw new Error(prepared.error.message);
  const cancelled = new Promise<void>((resolve) => {
    const off = h.runtime.on('batch:progress', (progress) => {
      if (progress.batchId !== batchId || progress.mode !== 'send') return;
      if (progress.state === 'sending' && progress.accepted >= 1) void handlers['batches:cancel']({ batchId });
      if (progress.state === 'cancelled' && !progress.stopping) {
        off();
        resolve();
      }
    });
  });
  const started = await handlers['batches:start']({ batchId, confirmationToken: prepared.value.confirmationToken, concurrency: 1 });
  if (!started.ok) throw new Error(started.error.message);
  await cancelled;
  control.setRateLimit(perMinute);
  const detail = await handlers['batches:get']({ batchId });
  if (!detail.ok) throw new Error(detail.error.message);
  remaining = batchFigures(detail.value.batch.counts).remaining;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const engineCount = (externalId: string) => (engineInternals(h.runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

describe('a cancelled batch\'s remaining rows in Chromium', () => {
  it('says the remaining rows will not be sent, and how to send them', async () => {
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(ROWS);
    await page.getByRole('button', { name: 'Open batch primes.csv, Cancelled' }).click();
    const notice = page.getByTestId('cancelled-remaining');
    await notice.getByText(`The remaining ${remaining} rows will not be sent`).waitFor();
    await notice.getByText(/move these rows to a new batch, with their own external ids/).waitFor();
    await notice.getByText(/the new batch needs its own/).waitFor();
    await screenshot(page, 'identity-1-cancelled');
  });

  it('names the rows already sent when the same file is imported again, and offers to send only the rest', async () => {
    await page.getByRole('button', { name: '← All batches' }).click();
    await page.getByLabel('CSV file of payouts').setInputFiles(join(dir, 'primes.csv'));
    const notice = page.getByTestId('sent-earlier');
    const sent = ROWS - remaining;
    await notice.getByText(sent === 1 ? '1 row of this file was already sent' : `${sent} rows of this file were already sent`).waitFor();
    await notice.getByText(new RegExp(`${remaining} never left`)).waitFor();
    await notice.getByRole('button', { name: `Send only the ${remaining} rows that never left` }).waitFor();
    await screenshot(page, 'identity-2-sent-earlier');
    // A second import of the file shows the one action: the sent rows dropped, the rest ready to confirm.
    await page.getByRole('button', { name: '← All batches' }).click();
    await page.getByLabel('CSV file of payouts').setInputFiles(join(dir, 'primes.csv'));
    await page.getByTestId('sent-earlier').getByRole('button', { name: `Send only the ${remaining} rows that never left` }).click();
    await page.getByText(`${remaining} rows`, { exact: false }).first().waitFor();
    await expect.poll(() => page.getByTestId('sent-earlier').count()).toBe(0);
    await expect.poll(() => page.getByRole('checkbox', { name: 'Send these rows again anyway' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Review and send' }).isEnabled(), { timeout: 30_000 }).toBe(true);
    await screenshot(page, 'identity-2b-only-never-left');
    await page.getByRole('button', { name: '← All batches' }).click();
  });

  it('sends them through a new batch and the usual confirmation, each paid once under its own id', async () => {
    await page.getByRole('button', { name: 'Open batch primes.csv, Cancelled' }).click();
    await page.getByTestId('cancelled-remaining').getByRole('button', { name: `Send the ${remaining} remaining rows…` }).click();
    await page.getByRole('heading', { level: 1, name: 'primes (remaining).csv' }).waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm batch' });
    const send = dialog.getByRole('button', { name: `Send ${remaining} payouts` });
    await send.waitFor();
    await screenshot(page, 'identity-3-confirm-remaining');
    await send.click();
    await page.getByText('Every row has a final status.').waitFor({ timeout: 90_000 });
    for (let row = 2; row <= ROWS + 1; row += 1) expect(engineCount(`${batchId}-${row}`)).toBe(1);
    await screenshot(page, 'identity-4-remaining-sent');
  });

  it('shows the cancelled batch\'s moved rows as "moved to" the new batch (a link), counted there only (issue 37 item 3)', async () => {
    await page.getByRole('button', { name: '← All batches' }).click();
    await page.getByRole('button', { name: 'Open batch primes.csv, Cancelled' }).click();
    await page.getByTestId('cancelled-remaining').getByText(`The ${remaining} rows left when this batch was cancelled were moved to the batch “primes (remaining).csv” (Done)`, { exact: false }).waitFor();
    const counters = page.locator('.batch-counters');
    await counters.getByText('Moved to another batch').waitFor();
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    const links = table.getByRole('button', { name: 'Moved to batch “primes (remaining).csv”' });
    await expect.poll(() => links.count()).toBe(remaining);
    expect(await table.getByText('Not sent (cancelled)').count()).toBe(0);
    await page.getByTestId('report-moved').getByText(`${remaining} rows were moved to the batch “primes (remaining).csv”`, { exact: false }).waitFor();
    await screenshot(page, 'identity-4b-moved-to');
    await links.first().scrollIntoViewIfNeeded();
    await screenshot(page, 'identity-4c-moved-rows');
    await links.first().click();
    await page.getByRole('heading', { level: 1, name: 'primes (remaining).csv' }).waitFor();
  });

  it('sends the re-imported file as new payouts: new external ids listed old → new, confirmed, each row paid again under its new id only', async () => {
    await page.getByRole('button', { name: '← All batches' }).click();
    await page.getByRole('button', { name: 'Open batch primes.csv, To check' }).last().click(); // the first re-import (the list is newest first)
    const notice = page.getByTestId('sent-earlier');
    await notice.getByText(`${ROWS} rows of this file were already sent`).waitFor();
    // No "send anyway": an id sent earlier is never sent again; they are dropped, or sent as new payouts.
    expect(await page.getByRole('checkbox', { name: 'Send these rows again anyway' }).count()).toBe(0);
    await notice.getByRole('button', { name: 'Send them as new payouts (new external ids)…' }).click();
    const dialog = page.getByRole('dialog', { name: `Pay these ${ROWS} rows again as new payouts?` });
    await dialog.getByText(`Row 2 · ${batchId}-2 → ${batchId}-2-n1`).waitFor();
    await dialog.getByText(`and ${ROWS - 8} more`).waitFor();
    await dialog.getByText(/Each will be paid again: a second payout under a new external id/).waitFor();
    await screenshot(page, 'identity-6-renew-dialog');
    await dialog.getByRole('button', { name: 'Give them new ids' }).click();
    await expect.poll(() => page.getByTestId('sent-earlier').count()).toBe(0);
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    await table.getByText(`${batchId}-2-n1`).waitFor();
    await screenshot(page, 'identity-6b-renewed');
    await expect.poll(() => page.getByRole('button', { name: 'Review and send' }).isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByRole('button', { name: 'Review and send' }).click();
    await page.getByRole('dialog', { name: 'Confirm batch' }).getByRole('button', { name: `Send ${ROWS} payouts` }).click();
    await page.getByText('Every row has a final status.').waitFor({ timeout: 90_000 });
    expect(await table.getByTestId('already-sent').count()).toBe(0);
    await screenshot(page, 'identity-6c-renewed-sent');
    // Each row twice at the engine: once under its old id, once under its new one.
    for (let row = 2; row <= ROWS + 1; row += 1) expect([engineCount(`${batchId}-${row}`), engineCount(`${batchId}-${row}-n1`)]).toEqual([1, 1]);
  });

  it('reads in French', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Transferts groupés' }).click();
    const back = page.getByRole('button', { name: '← Tous les lots' });
    if (await back.count()) await back.click();
    await page.getByRole('button', { name: 'Ouvrir le lot primes.csv, Annulé' }).click();
    // Sent as their own batch: the cancelled batch now says where they went.
    await page.getByTestId('cancelled-remaining').getByText(`Les ${remaining} lignes restées à l’annulation de ce lot ont été déplacées vers le lot « primes (remaining).csv » (Terminé)`, { exact: false }).waitFor();
    await screenshot(page, 'identity-5-french');
    // Dark theme: the notice and the batch sent as new payouts read, with no serious axe finding.
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Paramètres' }).click();
    await page.locator('#theme-choice').selectOption('dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Transferts groupés' }).click();
    await page.getByTestId('cancelled-remaining').waitFor(); // the batch open before stays open
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'identity-7-french-dark');
    await page.getByRole('button', { name: '← Tous les lots' }).click();
    await page.getByRole('button', { name: 'Ouvrir le lot primes.csv, Terminé' }).click();
    await page.getByRole('table', { name: /Lignes du lot/ }).getByText(`${batchId}-2-n1`).waitFor(); // the rows sent as new payouts
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'identity-8-already-sent-dark');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Paramètres' }).click();
    await page.locator('#theme-choice').selectOption('light');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Paramètres' }).click();
    await page.getByLabel('Langue').selectOption('en');
  });

  it('refuses the same payout form again before anything is sent and opens the payout it already is; shows a retried payout as "Retry of" its id', async () => {
    const { handlers } = h.runtime;
    const request = { payment_method: 'momo_cm', amount: 2500, phone_number: '+237671112233', external_id: 'E2E-SINGLE-1', customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' } };
    const quote = await handlers['payouts:prepare']({ request });
    if (!quote.ok) throw new Error(quote.error.message);
    const sent = await handlers['payouts:initiate']({ request, confirmationToken: quote.value.confirmationToken });
    if (!sent.ok) throw new Error(sent.error.message);
    // The same payout typed again in the form: told at Review, with the way to the payout it already is.
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'New payout', exact: true }).click();
    const form = page.getByRole('form', { name: 'New payout' });
    await form.getByLabel(/^Amount/).fill('2500');
    await form.getByLabel('Phone number').fill('+237671112233');
    await form.getByLabel('First name').fill('Awa');
    await form.getByLabel('Last name').fill('Nkemdirim');
    await form.getByLabel('Email').fill('awa@example.com');
    await form.getByLabel('External id').fill('E2E-SINGLE-1');
    await form.getByRole('button', { name: 'Review payout' }).click();
    await form.getByText('This external id is already a payout in the journal: it is never sent twice.').waitFor();
    await screenshot(page, 'identity-9-single-already-sent');
    await form.getByRole('button', { name: 'Open that payout' }).click();
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain(sent.value.id);
    expect(engineCount('E2E-SINGLE-1')).toBe(1);

    // A row that fails at the service, retried: E2E-FAIL-1-r1, linked to E2E-FAIL-1.
    const imported = await handlers['batches:import']({ fileName: 'fails.csv', text: 'phone_number,amount,first_name,last_name,email,description,external_id\n+237650000002,700,Jean,Mbarga,jean@example.com,Prime,E2E-FAIL-1\n', paymentMethod: 'momo_cm' });
    if (!imported.ok) throw new Error(imported.error.message);
    const failing = imported.value.batch.id;
    const prepared = await handlers['batches:prepare']({ batchId: failing });
    if (!prepared.ok) throw new Error(prepared.error.message);
    await handlers['batches:start']({ batchId: failing, confirmationToken: prepared.value.confirmationToken });
    await expect.poll(async () => {
      const detail = await handlers['batches:get']({ batchId: failing });
      return detail.ok ? detail.value.batch.state === 'done' && detail.value.batch.counts.failed === 1 : false;
    }, { timeout: 30_000 }).toBe(true);
    const retry = await handlers['batches:retryFailed']({ batchId: failing });
    if (!retry.ok) throw new Error(retry.error.message);
    const again = await handlers['batches:prepare']({ batchId: retry.value.batch.id });
    if (!again.ok) throw new Error(again.error.message);
    await handlers['batches:start']({ batchId: retry.value.batch.id, confirmationToken: again.value.confirmationToken });
    const retriedRow = async () => {
      const rows = await handlers['batches:rows']({ batchId: retry.value.batch.id, filter: 'all', offset: 0, limit: 10 });
      return rows.ok ? rows.value.rows[0] : undefined;
    };
    expect((await retriedRow())?.externalId).toBe('E2E-FAIL-1-r1');
    await expect.poll(async () => (await retriedRow())?.journalId ?? null, { timeout: 30_000 }).not.toBeNull();
    const retriedId = (await retriedRow())!.journalId;
    await page.evaluate((hash) => (location.hash = hash), `#/timeline/${encodeURIComponent(retriedId!)}`);
    await page.getByText('E2E-FAIL-1', { exact: true }).waitFor();
    await page.getByText('Retry of', { exact: true }).waitFor();
    await screenshot(page, 'identity-10-retry-of');
    expect(engineCount('E2E-FAIL-1')).toBe(1);
    expect(engineCount('E2E-FAIL-1-r1')).toBe(1);
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
