/**
 * Bulk payouts end to end in Chromium, against the real runtime (engine, journal, keychain): a CSV
 * file as Excel writes it in French (BOM, `;`) with rows on the sandbox's outcome numbers and one
 * bad cell, fixed in the table; preview with the sandbox's fees; rehearsal; confirmation; progress to
 * the end; the report downloaded and read back. A screenshot of each step goes to test-results.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let dir: string;

// 10,000 + 20,000 + 5,000 + 15,000 = 50,000; sandbox payout fees 1 % + 50: 150 + 250 + 100 + 200 = 700.
const ROWS = [
  ['+237650000001', '10 000', 'Awa', 'Nkemdirim', 'awa@example.com', 'Commission octobre', 'Littoral'],
  ['+237650000002', '20000', 'Jean', 'Mbarga', 'jean.mbarga@example.com', 'Avance sur salaire', 'Centre'],
  ['+237650000009', '5000', 'Chantal', 'Essomba', 'chantal@example', 'Remboursement 1042', 'Littoral'],
  ['+237670000010', '15000', 'Paul', 'Biya', 'paul@example.com', 'Prime', 'Sud'],
];

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  dir = mkdtempSync(join(tmpdir(), 'paydesk-batch-e2e-'));
  const csv = ['phone_number;amount;first_name;last_name;email;description;meta.region', ...ROWS.map((row) => row.join(';'))].join('\r\n');
  writeFileSync(join(dir, 'octobre.csv'), `\uFEFF${csv}\r\n`, 'utf8');
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
  await page.getByRole('heading', { level: 1, name: 'Bulk payouts' }).waitFor();
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Bulk payouts in Chromium', () => {
  it('downloads a template that lists the columns', async () => {
    await page.getByRole('heading', { name: 'Past batches' }).waitFor();
    await page.getByText('No batches yet. Import a CSV file to start one.').waitFor();
    await screenshot(page, 'batch-0-new');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the template CSV' }).click()]);
    const text = readFileSync(await download.path(), 'utf8');
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    expect(text.replace(/^\uFEFF/, '').replace(/"/g, '').split('\r\n')[0]).toMatch(/^phone_number,amount,first_name,last_name,email/);
  });

  it('imports the file, shows the bad cell with its error, and takes the fix in place', async () => {
    await page.getByLabel('CSV file of payouts').setInputFiles(join(dir, 'octobre.csv'));
    await page.getByRole('heading', { level: 1, name: 'octobre.csv' }).waitFor();
    await page.getByText('1 invalid row: fix it in the table or drop it.').waitFor();
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    const bad = table.getByRole('button', { name: /^Edit Email of row 4/ });
    expect(await bad.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => table.getByText('must be a valid email address').count()).toBe(1);
    await screenshot(page, 'batch-1-invalid-cell');

    await bad.click();
    const input = table.getByRole('textbox', { name: 'Edit Email of row 4' });
    await input.fill('chantal@example.com');
    await input.press('Enter');
    await page.getByText('Every row is valid.').waitFor();
    // The edit's answer (the batch's counts) is drawn at once, its rows when they are read again just after.
    await expect.poll(() => table.getByRole('button', { name: /^Edit Email of row 4/ }).getAttribute('aria-invalid')).toBeNull();
  });

  it('previews the count, the amounts, the sandbox’s fees and the wallet', async () => {
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('50,700 XAF').waitFor();
    await preview.getByText('700 XAF', { exact: true }).waitFor();
    await preview.getByText('50,000 XAF').waitFor();
    await preview.getByText('10,000,000 XAF').waitFor();
    await screenshot(page, 'batch-2-preview');
  });

  it('rehearses on the local engine and names the rows that would fail', async () => {
    await page.getByRole('button', { name: 'Rehearse', exact: true }).click();
    const card = page.getByRole('region', { name: 'Rehearsal on the local sandbox' });
    await card.getByText('2 rows would fail:').waitFor({ timeout: 60_000 });
    await card.getByText('PAYER_NOT_FOUND').waitFor();
    await screenshot(page, 'batch-3-rehearsal');
    // The rehearsal left the real wallet as it was.
    await page.getByRole('region', { name: 'Preview' }).getByText('10,000,000 XAF').waitFor();
  });

  it('confirms once, with Cancel focused, and sends with progress to the end', async () => {
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm batch' });
    const send = dialog.getByRole('button', { name: 'Send 4 payouts' });
    await send.waitFor();
    // The dialog moves focus to Cancel once it has mounted (an effect): on a loaded machine that is a frame or two later.
    const cancel = dialog.getByRole('button', { name: 'Cancel' });
    await expect.poll(() => cancel.evaluate((el) => el === document.activeElement), { timeout: 5_000 }).toBe(true);
    await screenshot(page, 'batch-4-confirm');
    await send.click();
    await page.getByRole('heading', { name: /^Sen(ding|t)$/ }).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Batch progress' });
    await expect.poll(() => bar.getAttribute('aria-valuenow'), { timeout: 60_000 }).toBe('4');
    await page.getByText('Every row has a final status.').waitFor({ timeout: 60_000 });
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    await table.getByText('PAYER_NOT_FOUND').waitFor({ timeout: 30_000 });
    await expect.poll(() => table.getByText('Completed', { exact: true }).count(), { timeout: 30_000 }).toBe(2);
    await page.getByText('2 completed, 2 failed, 0 unknown, 0 processing').waitFor();
    await screenshot(page, 'batch-5-done');
  });

  it('exports the batch report with each row’s transaction and final status', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the report (CSV)' }).click()]);
    await page.getByText(/Exported 4 rows to/).waitFor();
    const text = readFileSync(await download.path(), 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const parsed = Papa.parse<Record<string, string>>(text.slice(1).trim(), { header: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toHaveLength(4);
    // The formula guard writes a leading ' before a cell starting with +.
    const byPhone = new Map(parsed.data.map((row) => [row.phone_number!.replace(/^'/, ''), row]));
    // Fees as the service stored them (1 % + 50): read with the whole transaction when its status changed.
    expect(byPhone.get('+237650000001')).toMatchObject({ status: 'completed', failed_code: '', fee: '150' });
    expect(byPhone.get('+237670000010')).toMatchObject({ status: 'completed', fee: '200' });
    expect(byPhone.get('+237650000002')).toMatchObject({ status: 'failed', failed_code: 'PAYER_NOT_FOUND', state: 'accepted' });
    expect(byPhone.get('+237650000009')).toMatchObject({ status: 'cancelled' });
    expect(byPhone.get('+237670000010')?.transaction_id).toMatch(/^TE_\w+$/);
    expect(new Set(parsed.data.map((row) => row.external_id)).size).toBe(4);
    await screenshot(page, 'batch-6-report');
  });

  it('lists the batch as done among past batches', async () => {
    await page.getByRole('button', { name: '← All batches' }).click();
    await page.getByRole('button', { name: 'Open batch octobre.csv, Done' }).waitFor();
    await screenshot(page, 'batch-7-list');
  });

  it('reads in French, money in FCFA', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Transferts groupés' }).click();
    await page.getByRole('button', { name: 'Ouvrir le lot octobre.csv, Terminé' }).click();
    await page.getByRole('heading', { name: 'Envoyé' }).waitFor();
    await page.getByText('2 réussis, 2 en échec, 0 inconnus, 0 en cours').waitFor();
    await page.getByRole('table', { name: /Lignes du lot/ }).getByText(/^20\s000\sFCFA$/).waitFor();
    await screenshot(page, 'batch-8-french');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Paramètres' }).click();
    await page.getByLabel('Langue').selectOption('en');
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
