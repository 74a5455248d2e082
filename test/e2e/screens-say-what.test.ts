/**
 * Issue 26 items 1, 2, 4, 10, 11 in a real Chromium at 1280×800 over the real console and engine:
 * an open batch and an open reconciliation report keep their place through a reload and Back; a
 * batch waiting out the sandbox's maintenance says so (until when); History says From is after
 * To at the field; the Sandbox screen's rate limit and chaos card; one balance read at start.
 * Screenshots in light and dark, English and French.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserDay, screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const dir = join(tmpdir(), `paydesk-e2e-26-${process.pid}`);
const batchFile = join(dir, 'maintenance.csv');
const reconcileFile = join(dir, 'orders.csv');
const limitedFile = join(dir, 'limited.csv');
const hash = () => page.evaluate(() => location.hash);
const openNav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name, exact: true }).click();
/** The language remembered by main, then a reload (the page reads it at start; the place is kept). */
/**
 * The engine's real time, held while a test needs its rate-limit minute not to turn (the limit is a fixed
 * one-minute window: a test crossing its end found the balance read again at its next reload).
 */
let frozenMicros: number | null = null;
const setLanguage = async (language: 'en' | 'fr') => {
  const answer = await h.runtime.handlers['preferences:set']({ language });
  if (!answer.ok) throw new Error(answer.error.message);
  await page.reload();
};

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 800 }, engineWallMicros: () => frozenMicros ?? Date.now() * 1000 });
  page = h.page;
  mkdirSync(dir, { recursive: true });
  writeFileSync(batchFile, ['phone_number,amount,first_name,last_name,email,description', '+237670000010,1500,Awa,Ngo,awa@example.com,October', '+237670000011,2500,Jean,Mbarga,jean@example.com,October'].join('\n'));
  writeFileSync(limitedFile, ['phone_number,amount,first_name,last_name,email', '+237670000012,3000,Chantal,Essomba,chantal@example.com'].join('\n'));
  const today = browserDay();
  writeFileSync(reconcileFile, `external_id;kind;amount;expected_status;date\r\nnone-1;payment;1000;paid;${today}\r\n`);
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 180_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h?.runtime.handlers['sandbox:setMaintenance']({ on: false });
  await h?.close();
});

describe('places that reload and Back keep', () => {
  it('reads the balance once at start (no paired GET /v1/balance)', async () => {
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expect.poll(async () => {
      const requests = await h.runtime.handlers['sandbox:requests']({ limit: 500 });
      return requests.ok ? requests.value.requests.filter((request) => request.path === '/v1/balance').length : -1;
    }).toBe(1);
  });

  it('keeps an open reconciliation report through a reload', async () => {
    await openNav('Reconcile');
    await page.getByLabel('CSV file').setInputFiles(reconcileFile);
    await page.getByRole('button', { name: 'Import and match' }).click();
    await page.locator('.reconcile-progress .pill-done').waitFor({ timeout: 60_000 });
    await expect.poll(hash).toMatch(/^#\/reconcile\?report=.+/);
    await page.reload();
    await page.locator('.reconcile-progress .pill-done').waitFor({ timeout: 20_000 });
    expect(await hash()).toMatch(/^#\/reconcile\?report=.+/);
  }, 120_000);

  it('gives an open batch its address: a reload lands on it, Back on the list; mid-wait it says the service is in maintenance', async () => {
    await openNav('Bulk payouts');
    await page.getByLabel('CSV file of payouts').setInputFiles(batchFile);
    await page.getByRole('heading', { level: 1, name: 'maintenance.csv' }).waitFor();
    await expect.poll(hash).toMatch(/^#\/batches\?batch=.+/);
    const address = await hash();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'maintenance.csv' }).waitFor();
    expect(await hash()).toBe(address);

    await page.getByRole('region', { name: 'Preview' }).getByText('4,000 XAF').first().waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog');
    const send = dialog.getByRole('button', { name: 'Send 2 payouts' });
    await send.waitFor();
    expectOk(await h.runtime.handlers['sandbox:setMaintenance']({ on: true }));
    await send.click();
    const notice = page.locator('.batch-waiting');
    await expect.poll(() => notice.textContent(), { timeout: 20_000 }).toMatch(/^The service is offline for maintenance until .+ \(\d+ s left\)$/);
    expect(await page.getByRole('region', { name: /^Sending/ }).textContent()).toContain('The service answered HTTP 503 MAINTENANCE_MODE');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'batch-maintenance-wait');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'batch-maintenance-wait-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Reopened mid-wait (a reload): the wait shows at once, from the batch's detail.
    await page.reload();
    await expect.poll(() => page.locator('.batch-waiting').textContent(), { timeout: 10_000 }).toMatch(/offline for maintenance/);
    await setLanguage('fr');
    await expect.poll(() => page.locator('.batch-waiting').textContent()).toMatch(/^Le service est en maintenance jusqu’à/);
    await screenshot(page, 'batch-maintenance-wait-fr');
    await setLanguage('en');
    await page.locator('.batch-waiting').getByText(/offline for maintenance/).waitFor();

    expectOk(await h.runtime.handlers['sandbox:setMaintenance']({ on: false }));
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Bulk payouts' }).waitFor();
    expect(await hash()).toBe('#/batches');
  }, 120_000);

});

describe('History filters', () => {
  it('reads the documented status=failed and says at From that From is after To', async () => {
    await page.goto(`${h.host.url.split('#')[0]}#/history?status=failed&from=2026-11-20&to=2026-11-10`);
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(await page.locator('#h-status').inputValue()).toBe('status:failed');
    await page.locator('#h-from-error').getByText('From is after To').waitFor();
    expect(await page.locator('#h-from').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'history-from-after-to');
  });
});

describe('Sandbox: rate limit and webhook chaos', () => {
  it('sets both from the screen, in light and dark, English and French', async () => {
    await openNav('Sandbox');
    const card = page.locator('.sandbox-limits');
    await card.getByRole('heading', { name: 'Rate limit and webhook chaos' }).waitFor();
    await card.getByLabel('Requests a minute per key (0: no limit)').fill('120');
    await card.getByRole('button', { name: 'Set the rate limit' }).click();
    await card.getByText('Now: 120 requests a minute per key, then 429 RATE_LIMIT_EXCEEDED.').waitFor();
    await card.getByLabel('Dropped (%)').fill('50');
    await card.getByLabel('Late (%)').fill('25');
    await card.getByRole('button', { name: 'Turn chaos on' }).click();
    await card.getByText(/^On: dropped 50 %, late 25 % by 30 s/).waitFor();
    const status = expectOk(await h.runtime.handlers['sandbox:status']({}));
    expect(status.rateLimitPerKeyPerMinute).toBe(120);
    expect(status.chaos).toMatchObject({ drop: { rate: 0.5 }, late: { rate: 0.25, seconds: 30 } });
    // The card's top under the sticky header.
    const showCard = () => card.evaluate((element) => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 70));
    await showCard();
    await screenshot(page, 'sandbox-limits');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'sandbox-limits-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await setLanguage('fr');
    await card.getByRole('heading', { name: 'Limite de débit et chaos des webhooks' }).waitFor();
    await showCard();
    await screenshot(page, 'sandbox-limits-fr');
    await setLanguage('en');
    await card.getByRole('button', { name: 'Turn chaos off' }).click();
    await card.getByText('Off: every delivery is sent once, on time.').waitFor();
    await card.getByLabel('Requests a minute per key (0: no limit)').fill('0');
    await card.getByRole('button', { name: 'Set the rate limit' }).click();
    await card.getByText('Now: no limit.').waitFor();
  });
});

describe('a balance the rate limit refused', () => {
  it('says why in the preview and the Review step, and reads it again on request', async () => {
    frozenMicros = Date.now() * 1000;
    expectOk(await h.runtime.handlers['sandbox:setRateLimit']({ perMinute: 1 }));
    // The payout key's one request of this minute is spent.
    await h.runtime.handlers['balance:get']({});
    await openNav('Bulk payouts');
    // The batch opened earlier is still open (the sidebar keeps it): back to the list.
    const allBatches = page.getByRole('button', { name: /All batches/ });
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    if ((await allBatches.count()) > 0) await allBatches.click();
    await page.getByLabel('CSV file of payouts').setInputFiles(limitedFile);
    await page.getByRole('heading', { level: 1, name: 'limited.csv' }).waitFor();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('Not read just now: the service’s rate limit refused the request (HTTP 429).', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Send 1 payout' }).waitFor();
    await dialog.getByText(/Not read just now: the service’s rate limit refused/).waitFor();
    await screenshot(page, 'batch-review-balance-429');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'batch-review-balance-429-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await setLanguage('fr');
    await page.getByRole('region', { name: 'Aperçu' }).getByText(/Non lu pour l’instant/).waitFor();
    await screenshot(page, 'batch-preview-balance-429-fr');
    await setLanguage('en');
    await page.getByRole('region', { name: 'Preview' }).getByText(/Not read just now/).waitFor();
    expectOk(await h.runtime.handlers['sandbox:setRateLimit']({ perMinute: 0 }));
    frozenMicros = null;
    await page.getByRole('region', { name: 'Preview' }).getByRole('button', { name: 'Check the balance again' }).click();
    await page.getByRole('region', { name: 'Preview' }).getByText(/After the batch:/).waitFor();
  }, 120_000);
});

function expectOk<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}
