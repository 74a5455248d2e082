/**
 * Reconcile in a real Chromium over the real console: import a merchant file, read the report,
 * open a row's transaction, export the CSV, reopen the run in French. Screenshots of each step.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createClient } from '../../electron/client';
import { browserDay, screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const file = join(tmpdir(), `paydesk-orders-${process.pid}.csv`);
const ids: Record<string, string> = {};

/** The merchant's backend creates transactions at the engine; the control API settles them. */
async function createTransactions(): Promise<void> {
  const engine = h.runtime.engine!;
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const key = (type: string) => keys.find((k) => k.type === type)!;
  const client = createClient(
    { baseUrl: engine.api.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: key('payment').publicKey, payoutPublicKey: key('payout').publicKey },
    async (publicKey) => keys.find((k) => k.publicKey === publicKey)!.secretKey,
  );
  const make = async (ext: string, amount: number, phone: string, kind: 'payment' | 'payout' = 'payment') => {
    const request = { payment_method: 'momo_cm', amount, phone_number: phone, external_id: ext, customer: { first_name: 'Awa', last_name: 'Ngo', email: 'awa@example.com' } };
    const result = kind === 'payment' ? await client.createPayment(request) : await client.initiatePayout(request);
    if (result.kind !== 'success') throw new Error(JSON.stringify(result));
    ids[ext] = result.data.transaction_id;
    const settled = await fetch(`${engine.api.url}/_sandbox/transactions/${ids[ext]}/settle`, { method: 'POST', headers: { authorization: `Bearer ${engine.control.adminToken}`, 'content-type': 'application/json' }, body: '{}' });
    expect(settled.status).toBe(200);
  };
  for (let i = 1; i <= 5; i += 1) await make(`order-${i}`, 5000 * i, '+237650000001');
  await make('refund-1', 12_000, '+237650000001', 'payout');
  await make('order-6', 7500, '+237650000001');
  await make('order-7', 3000, '+237650000002');
  await make('order-8', 4500, '+237650000008');
  // Looked up by the console earlier, and not in the merchant's file.
  await make('tip-1', 1500, '+237650000001');
  const looked = await h.runtime.handlers['transactions:lookup']({ id: 'tip-1', by: 'external_id', kind: 'payment' });
  expect(looked.ok).toBe(true);
  await client.close();
}

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  await createTransactions();
  const today = browserDay();
  const lines = [
    'external_id;kind;amount;expected_status;date',
    ...[1, 2, 3, 4, 5].map((i) => `order-${i};payment;${5000 * i};paid;${today}`),
    `refund-1;payout;12000;paid;${today}`,
    `order-6;payment;8000;paid;${today}`,
    `order-7;payment;3000;payé;${today}`,
    `order-8;payment;4500;paid;${today}`,
    `order-9;payment;6000;paid;${today}`,
  ];
  writeFileSync(file, `\uFEFF${lines.join('\r\n')}\r\n`);
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterAll(async () => {
  rmSync(file, { force: true });
  await h?.close();
});

describe('Reconcile', () => {
  it('imports the file, shows each category with counts and totals, opens a row, exports, and reopens in French', async () => {
    await page.getByRole('button', { name: 'Reconcile' }).click();
    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByLabel('Still processing after (minutes)').fill('0');
    await page.getByRole('button', { name: 'Import and match' }).click();
    await page.locator('.reconcile-progress .pill-done').waitFor();
    const card = (category: string) => page.locator(`.reconcile-card[data-category="${category}"] .reconcile-card-count`);
    await expect.poll(() => card('matched').textContent()).toBe('6');
    expect(await card('amount_differs').textContent()).toBe('1');
    expect(await card('status_differs').textContent()).toBe('1');
    expect(await card('missing_at_service').textContent()).toBe('1');
    expect(await card('still_processing').textContent()).toBe('1');
    expect(await card('unknown_to_merchant').textContent()).toBe('1');
    expect(await page.locator('.reconcile-card[data-category="unknown_to_merchant"] .reconcile-card-amount').textContent()).toBe('1,500 XAF');
    expect(await page.locator('.reconcile-card[data-category="matched"] .reconcile-card-amount').textContent()).toBe('87,000 XAF');
    await expect.poll(() => page.getByRole('region', { name: /Report rows/ }).getByRole('listitem').count()).toBe(11);
    await page.locator('.reconcile-report').evaluate((element) => element.scrollIntoView());
    await screenshot(page, 'reconcile-report');

    await page.locator('.reconcile-card[data-category="amount_differs"]').click();
    await expect.poll(() => page.getByRole('region', { name: 'Report rows, 1' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Open the transaction of row 8' }).click();
    await expect.poll(() => page.getByText(ids['order-6']!).first().isVisible()).toBe(true);
    await screenshot(page, 'reconcile-opened-row');

    await page.getByRole('button', { name: 'Reconcile' }).click();
    await page.getByRole('button', { name: /^Open paydesk-orders/ }).first().click();
    await page.locator('.reconcile-progress .pill-done').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    // Every cell is quoted (the CSV guard); the comparisons read the cells' text.
    const lines = csv.replace(/^\uFEFF/, '').replace(/"/g, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('row,external_id,kind,amount,expected_status,date,result,transaction_id,service_status,service_amount,currency,note');
    expect(lines).toHaveLength(12);
    expect(lines[11]).toBe(`,tip-1,payment,,,,Unknown to the merchant,${ids['tip-1']},completed,1500,XAF,`);
    expect(lines.find((line) => line.startsWith('11,order-9,'))).toContain(',Missing at the service,');
    expect(lines.find((line) => line.startsWith('10,order-8,'))).toContain(`,Still processing after 0 min,${ids['order-8']},processing,4500,XAF,`);

    await page.getByRole('button', { name: 'Verify rows still processing' }).click();
    await expect.poll(() => card('still_processing').textContent()).toBe('0');
    expect(await card('matched').textContent()).toBe('7');

    expect((await h.runtime.handlers['preferences:set']({ language: 'fr' })).ok).toBe(true);
    await page.reload();
    await page.getByRole('button', { name: 'Rapprochement' }).click();
    await page.getByRole('button', { name: /^Ouvrir paydesk-orders/ }).first().click();
    await page.locator('.reconcile-progress .pill-done').waitFor();
    await expect.poll(() => page.locator('.reconcile-card[data-category="matched"] .reconcile-card-amount').textContent()).toMatch(/^91\s500\sFCFA$/);
    await page.locator('.reconcile-report').evaluate((element) => element.scrollIntoView());
    expect(await page.locator('.reconcile-card[data-category="missing_at_service"] .reconcile-card-title').textContent()).toBe('Absent chez le service');
    expect(await page.locator('.rc-col-detail', { hasText: 'vérifié' }).first().textContent()).toBe('vérifié : réussi');
    await screenshot(page, 'reconcile-report-fr');
    expect(h.pageErrors).toEqual([]);
  }, 120_000);

  it('lists every bad cell of a file by row and column, and imports nothing', async () => {
    const bad = join(tmpdir(), `paydesk-bad-${process.pid}.csv`);
    writeFileSync(bad, 'external_id,kind,amount\nok-1,payment,100\nbad 2,refund,12.5\n');
    try {
      await page.getByLabel('Fichier CSV').setInputFiles(bad);
      await page.getByRole('button', { name: 'Importer et rapprocher' }).click();
      const alert = page.locator('.reconcile-errors');
      await alert.waitFor();
      expect(await alert.locator('strong').textContent()).toBe('Le fichier n’a pas été importé : 3 erreurs.');
      expect(await alert.locator('tbody tr').allTextContents()).toEqual([
        '3external_idne peut contenir que des lettres, des chiffres et . _ : -',
        '3kinddoit être payment ou payout',
        '3amountdoit être un nombre entier dans la plus petite unité, chiffres uniquement (ex. 25000)',
      ]);
      await screenshot(page, 'reconcile-errors-fr');
    } finally {
      rmSync(bad, { force: true });
    }
  }, 60_000);

  it('reads `5 000` and files one external id twice as a duplicate in the merchant’s records, both lines named (fr)', async () => {
    const twice = join(tmpdir(), `paydesk-twice-${process.pid}.csv`);
    writeFileSync(twice, 'external_id;kind;amount;expected_status\norder-1;payment;5 000;payé\norder-1;payment;5000;payé\n');
    try {
      await page.getByLabel('Fichier CSV').setInputFiles(twice);
      await page.getByRole('button', { name: 'Importer et rapprocher' }).click();
      await page.locator('.reconcile-progress .pill-done').waitFor();
      const card = page.locator('.reconcile-card[data-category="duplicate_in_records"]');
      await expect.poll(() => card.locator('.reconcile-card-count').textContent()).toBe('1');
      expect(await card.locator('.reconcile-card-title').textContent()).toBe('En double dans vos relevés');
      expect(await page.locator('.reconcile-card[data-category="matched"] .reconcile-card-count').textContent()).toBe('1');
      await card.click();
      const note = page.locator('.rc-col-detail', { hasText: 'ligne 2' }).first();
      await note.waitFor();
      expect(await note.textContent()).toBe('doublon de la ligne 2, même référence externe (la ligne 2 a été vérifiée, celle-ci non)');
      await page.locator('.reconcile-report').evaluate((element) => element.scrollIntoView());
      await screenshot(page, 'reconcile-duplicate-fr');
      expect(h.pageErrors).toEqual([]);
    } finally {
      rmSync(twice, { force: true });
    }
  }, 60_000);
});
