/**
 * History at 100,000 journal rows in a real Chromium: the virtual list renders a screenful, fetches
 * pages as it scrolls, filters, and exports CSV. Timings are printed, not asserted.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

const ROWS = 100_000;
let h: Harness;
let page: Page;

/**
 * Writes ROWS journal entries straight into the journal file in one SQLite transaction, with the
 * columns the journal's own `recordRequest` writes (calling it 100,000 times takes most of a minute).
 */
function seedJournal(h: Harness): void {
  const db = h.runtime.journal;
  const base = Date.parse('2026-01-01T08:00:00Z');
  const insert = db.prepare(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, status, failed_code, external_id, amount, currency,
       phone_number, payment_method, customer_first_name, customer_last_name, customer_email, description, metadata,
       request, created_at, updated_at)
     VALUES (?, 'local-sandbox', 'Local sandbox', 'sandbox', ?, 'known', ?, ?, ?, ?, ?, 'XAF', ?, 'service_demo', 'Customer', ?, ?, NULL, NULL, ?, ?, ?)`,
  );
  const statuses = ['completed', 'failed', 'processing'] as const;
  db.transaction(() => {
    for (let i = 0; i < ROWS; i += 1) {
      const request = {
        payment_method: 'service_demo',
        amount: 1000 + (i % 500) * 100,
        phone_number: `+2376${String(10_000_000 + i).padStart(8, '0')}`,
        customer: { first_name: 'Customer', last_name: `N${i}`, email: `c${i}@example.com` },
        external_id: `seed-${i}`,
      };
      const at = base + i * 60_000;
      insert.run(randomUUID(), i % 4 === 0 ? 'payout' : 'payment', `TE_SEED${i}`, statuses[i % 3], i % 3 === 1 ? 'PAYER_NOT_FOUND' : null, request.external_id, request.amount, request.phone_number, request.customer.last_name, request.customer.email, JSON.stringify(request), at, at);
    }
  })();
}

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  const started = performance.now();
  seedJournal(h);
  console.log(`seeded ${ROWS.toLocaleString('en')} journal rows in ${Math.round(performance.now() - started)} ms`);
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('History at 100,000 rows', () => {
  it('shows the count, renders only a screenful of rows, and fills rows as it scrolls', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'History' }).click();
    await page.getByText('100,000 transactions').waitFor();
    const list = page.getByRole('region', { name: 'Transactions, 100,000 rows' });
    await list.getByRole('button', { name: /, Customer N99999,/ }).waitFor();
    const rendered = await list.getByRole('listitem').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80);
    await screenshot(page, 'history-100k');

    // Jump to the middle, then to the end: each needs its own page of rows from the journal.
    for (const [fraction, index] of [[0.5, 50_000], [1, ROWS - 1]] as const) {
      const started = performance.now();
      await list.evaluate((el, f) => {
        el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
      }, fraction);
      // Newest first: row k shows entry ROWS - 1 - k.
      const near = ROWS - 1 - index;
      await list.getByRole('button', { name: new RegExp(`, Customer N${String(near).slice(0, -2)}\\d\\d,`) }).first().waitFor();
      console.log(`scroll to row ${index.toLocaleString('en')}: rows on screen after ${Math.round(performance.now() - started)} ms`);
      expect(await list.getByRole('listitem').count()).toBeLessThan(80);
    }
  });

  it('filters by text and status, and exports the result as CSV with progress', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('+237610054321');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1 transaction', { exact: true }).waitFor();
    await page.getByRole('button', { name: /, Customer N54321,/ }).waitFor();
    // Part of an external id (issue 16 item 10): seed-5432 and seed-54320 … seed-54329.
    await page.getByRole('searchbox', { name: 'Search' }).fill('seed-5432');
    await page.getByText('11 transactions', { exact: true }).waitFor();
    await page.getByRole('button', { name: /, Customer N54329,/ }).waitFor();
    // The failure code has its own column.
    await page.getByRole('region', { name: /^Transactions/ }).getByText('PAYER_NOT_FOUND').first().waitFor();
    await screenshot(page, 'history-partial-id');
    // Part of a phone number, typed with spaces: +23761005432X, ten of them.
    await page.getByRole('searchbox', { name: 'Search' }).fill('610 054 32');
    await page.getByText('10 transactions', { exact: true }).waitFor();

    // One day in the user's time zone holds 1,440 of the minute-apart rows; one amount, 1 row in 500.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('100,000 transactions').waitFor();
    await page.getByLabel('From', { exact: true }).fill('2026-02-01');
    await page.getByLabel('To', { exact: true }).fill('2026-02-01');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('1,440 transactions').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Min amount').fill('1,000');
    await page.getByLabel('Max amount').fill('1000');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('200 transactions').waitFor();

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('100,000 transactions').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('status:failed');
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('payout');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const countText = await page.getByText(/^[\d,]+ transactions$/).innerText();
    const count = Number(countText.replace(/[^\d]/g, ''));
    expect(count).toBeGreaterThan(1000);
    expect(count).toBeLessThan(20_000);

    const started = performance.now();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    await page.getByText(new RegExp(`Exported ${count.toLocaleString('en')} rows to`)).waitFor();
    const file = await download.path();
    const lines = readFileSync(file, 'utf8').trim().split('\r\n');
    console.log(`exported ${count.toLocaleString('en')} rows as CSV in ${Math.round(performance.now() - started)} ms`);
    expect(lines).toHaveLength(count + 1);
    expect(lines[0]).toContain('status');
    expect(lines.slice(1).every((line) => line.includes(',"failed",'))).toBe(true);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
