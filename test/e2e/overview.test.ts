/**
 * The Overview in Chromium with data: payments and payouts made on the local sandbox (completed,
 * failed with PAYER_NOT_FOUND and NOT_ENOUGH_FUNDS, one stuck +237650000008), figures that follow
 * live as they settle, the console and engine clocks moved 11 minutes on so the stuck one is
 * listed, its timeline opened from the list, Verify, and the same screen in the dark theme.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { JournalTransaction } from '../../shared/api';
import type { TransactionRequest } from '../../shared/contract';
import { systemClock } from '../../electron/console/deps';
import { screenshot, SCREENSHOTS, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
/** The console's clock: wall time plus what the test moves it by. */
let offset = 0;
const clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
let stuck: JournalTransaction;

function request(amount: number, phone: string, last: string): TransactionRequest {
  return { payment_method: 'service_demo', amount, phone_number: phone, customer: { first_name: 'Ada', last_name: last, email: 'ada@example.com' } };
}

async function pay(amount: number, phone: string, last: string): Promise<JournalTransaction> {
  const result = await h.runtime.handlers['payments:create']({ request: request(amount, phone, last) });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

async function payOut(amount: number, phone: string, last: string): Promise<JournalTransaction> {
  const body = request(amount, phone, last);
  const quote = await h.runtime.handlers['payouts:prepare']({ request: body });
  if (!quote.ok) throw new Error(quote.error.message);
  const result = await h.runtime.handlers['payouts:initiate']({ request: body, confirmationToken: quote.value.confirmationToken });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function today(): ReturnType<Page['getByRole']> {
  return page.getByRole('region', { name: 'Today' });
}

beforeAll(async () => {
  h = await startHarness({ clock });
  page = h.page;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await page?.screenshot({ path: `/tmp/paydesk-e2e-failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}.png` }).catch(() => undefined);
});

afterAll(async () => {
  await h?.close();
});

describe('Overview in Chromium', () => {
  it('is the screen the console opens on, empty at first', async () => {
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Screens' });
    expect(await nav.getByRole('button').first().textContent()).toBe('Overview');
    expect(await nav.getByRole('button', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await today().getByText('0 transactions', { exact: true }).first().waitFor();
    await page.getByText('No failed transaction in the last 7 days.').waitFor();
    await page.getByRole('region', { name: 'Wallet balance' }).getByText(/^[\d,]+ XAF$/).waitFor();
  });

  it('follows payments and payouts live as they settle: counts, amounts, success rate, failures with their sentence', async () => {
    await pay(25_000, '+237650000001', 'Completed');
    await pay(3_000, '+237650000002', 'NotFound');
    await pay(4_000, '+237650000003', 'NoFunds');
    await payOut(10_000, '+237650000001', 'Paid');
    stuck = await pay(7_500, '+237650000008', 'Mbarga');
    // No reload: the screen refreshes on the journal's push events as the engine settles them.
    await today().getByText('5 transactions', { exact: true }).waitFor();
    await today().getByText('2 completed of 4 finished').waitFor({ timeout: 20_000 });
    expect(await today().getByText('50%').count()).toBe(1);
    expect(await today().getByText('49,500 XAF', { exact: true }).count()).toBe(1);
    const byKind = today().getByRole('table').first();
    expect(await byKind.getByRole('row', { name: /^Payments 4 39,500 XAF$/ }).count()).toBe(1);
    expect(await byKind.getByRole('row', { name: /^Payouts 1 10,000 XAF$/ }).count()).toBe(1);

    const failures = page.getByRole('figure', { name: 'Failures by reason' });
    await failures.getByRole('row', { name: /^PAYER_NOT_FOUND The customer’s mobile-money account was not found\. 1 1 3,000 XAF$/ }).waitFor();
    await failures.getByRole('row', { name: /^NOT_ENOUGH_FUNDS The customer did not have enough money in their account\. 1 1 4,000 XAF$/ }).waitFor();

    // The volume chart's numbers as text for screen readers: today's row of its table.
    const volume = page.getByRole('table', { name: /Payments and payouts created each day/ });
    expect(await volume.getByRole('row').last().textContent()).toMatch(/4 · 39,500 XAF.*1 · 10,000 XAF.*2$/);
    await page.locator('.ov-charts[data-drawn="true"]').waitFor();
    expect(await page.locator('path.ov-bar-payments').count()).toBeGreaterThan(0);
    expect(await page.locator('path.ov-bar-failed').count()).toBe(2);
    await page.getByRole('region', { name: /Processing for more than 10 minutes/ }).getByText(/Nothing waiting/).waitFor();
    await screenshot(page, 'overview-light');
    const marks = await page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('paydesk:overview')).map((m) => `${m.name} ${Math.round(m.startTime)} ms`));
    console.log(`overview marks (ms since navigation): ${marks.slice(0, 3).join(', ')}`);
  });

  it('lists the payment still processing after 11 minutes, opens its timeline from the list, and Verify completes it', async () => {
    // Eleven minutes later for the console and for the engine (requests are still signed with real time).
    offset = 11 * 60_000;
    const advanced = await h.runtime.handlers['sandbox:advanceClock']({ seconds: 11 * 60 });
    expect(advanced.ok).toBe(true);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const stuckList = page.getByRole('region', { name: /Processing for more than 10 minutes/ });
    const row = stuckList.getByRole('button', { name: /Payment of 7,500 XAF to Ada Mbarga, \+237650000008/ });
    await row.waitFor();
    expect(await stuckList.getByText(stuck.transactionId!).count()).toBe(1);
    await screenshot(page, 'overview-stuck-light');
    await page.screenshot({ path: `${SCREENSHOTS}/overview-full.png`, fullPage: true });

    await page.emulateMedia({ colorScheme: 'dark' });
    const barFill = () => page.evaluate(() => getComputedStyle(document.querySelector('path.ov-bar-payments')!).getPropertyValue('fill'));
    expect(await barFill()).toBe('rgb(122, 162, 255)');
    // The whole window is dark now (one set of tokens), not a dark panel inside a light window.
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(18, 23, 34)');
    expect(await page.locator('.sidebar').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(22, 28, 40)');
    await screenshot(page, 'overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await barFill()).toBe('rgb(37, 84, 199)');

    await row.click();
    await page.getByText(stuck.transactionId!).first().waitFor();
    expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Transaction' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Overview' }).click();

    await stuckList.getByRole('button', { name: 'Verify the payment of 7,500 XAF to Ada Mbarga' }).click();
    await stuckList.getByRole('status').filter({ hasText: 'Verified: the status is now Completed.' }).waitFor();
    await stuckList.getByText(/Nothing waiting/).waitFor();
    await today().getByText('3 completed of 5 finished').waitFor();
    await screenshot(page, 'overview-verified');
    expect(h.pageErrors).toEqual([]);
  });

  it('reads in French after the language is changed in Settings', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Language', { exact: true }).selectOption('fr');
    await page.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Aperçu' }).click();
    await page.getByRole('heading', { name: 'Aperçu', level: 1 }).waitFor();
    const today = page.getByRole('region', { name: 'Aujourd’hui' });
    await today.getByText('3 réussies sur 5 terminées').waitFor();
    expect(await today.getByText(/^49\s500\sFCFA$/).count()).toBe(1);
    await page.getByRole('figure', { name: 'Échecs par motif' }).getByText('Le compte mobile money du client est introuvable.').waitFor();
    await page.locator('.ov-charts[data-drawn="true"]').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/overview-fr.png`, fullPage: true });
    expect(h.pageErrors).toEqual([]);
  });
});
