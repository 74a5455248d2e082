/**
 * A console stopped mid-batch, in Chromium on the real runtime: a 1,000-row batch is sending when the
 * runtime and its host close; a new runtime on the same folder starts, the page shows the batch as
 * interrupted, and "Look up and resume" finishes it with one transaction per row.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { ROOT, ensureRendererBuilt, screenshot } from './harness';

const ROWS = 1000;
let dir: string;
let browser: Browser;
let runtime: ConsoleRuntime | null = null;
let host: BrowserHost | null = null;
const pageErrors: string[] = [];

async function startConsole(): Promise<Page> {
  // The sandbox's per-key limit (600/min) is off: this test is about the stop and the resume, not 429s (batch-rate-limit.test.ts).
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'user-data'), transport: 'browser', allowLive: false, version: '0.1.0', engine: { settleMs: 800, rateLimit: { perKeyPerMinute: 0 } } });
  host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: join(ROOT, 'dist/renderer'), port: 0 });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, timezoneId: 'Africa/Douala', locale: 'en-GB' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  await page.goto(host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  return page;
}

async function stopConsole(page: Page) {
  await page.context().close();
  await host?.close();
  await runtime?.close();
  host = null;
  runtime = null;
}

beforeAll(async () => {
  ensureRendererBuilt();
  dir = mkdtempSync(join(tmpdir(), 'paydesk-batch-stop-'));
  const lines = ['phone_number,amount,first_name,last_name,email'];
  for (let i = 0; i < ROWS; i += 1) lines.push(`+2376710${String(i).padStart(5, '0')},1000,Awa,N${i},awa${i}@example.com`);
  writeFileSync(join(dir, 'bulk.csv'), lines.join('\n'), 'utf8');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 120_000);

afterAll(async () => {
  await host?.close();
  await runtime?.close();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('A batch interrupted by a stop of the console', () => {
  it('shows as interrupted after a restart, and Resume finishes it with one transaction per row', async () => {
    let page = await startConsole();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
    await page.getByLabel('CSV file of payouts').setInputFiles(join(dir, 'bulk.csv'));
    await page.getByText('Every row is valid.').waitFor();
    await page.getByRole('region', { name: 'Preview' }).getByText('1,000,000 XAF').waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm batch' });
    await dialog.getByRole('spinbutton', { name: 'Payouts sent at the same time' }).fill('1');
    await dialog.getByRole('button', { name: 'Send 1,000 payouts' }).click();
    const bar = page.getByRole('progressbar', { name: 'Batch progress' });
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 60_000 }).toBeGreaterThanOrEqual(20);
    await screenshot(page, 'batch-interrupted-0-sending');
    await stopConsole(page);

    page = await startConsole();
    await page.getByText(/1 batch\(es\) were being sent when Paydesk last stopped/).waitFor();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
    await page.getByRole('button', { name: 'Open batch bulk.csv, Interrupted' }).click();
    await page.getByText('This batch was interrupted').waitFor();
    const sentBefore = Number(await page.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow'));
    expect(sentBefore).toBeGreaterThanOrEqual(20);
    expect(sentBefore).toBeLessThan(ROWS);
    await screenshot(page, 'batch-interrupted-1-reopened');

    await page.getByRole('button', { name: 'Look up and resume' }).click();
    await page.getByRole('heading', { name: 'Sent', exact: true }).waitFor({ timeout: 110_000 });
    await expect.poll(() => page.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe(String(ROWS));
    const counters = page.getByRole('group', { name: 'Batch progress' });
    expect(await counters.getByText('Outcome unknown').locator('..').innerText()).toMatch(/\n0$/);
    await screenshot(page, 'batch-interrupted-2-resumed');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the report (CSV)' }).click()]);
    const parsed = Papa.parse<Record<string, string>>(readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').trim(), { header: true });
    expect(parsed.data).toHaveLength(ROWS);
    const transactions = parsed.data.map((row) => row.transaction_id);
    expect(transactions.every((id) => /^TE_\w+$/.test(id ?? ''))).toBe(true);
    expect(new Set(transactions).size).toBe(ROWS);
    await stopConsole(page);
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
