/**
 * The console as a person uses it, in a real Chromium against the browser host, with the real
 * engine, journal and keychain behind it. Waits are for named states (roles and text), never sleeps.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const STATE_TIMEOUT = 20_000;

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterEach(async (context) => {
  // A failed step leaves a picture of the page, to see what the person would have seen.
  if (context.task.result?.state === 'fail') await page?.screenshot({ path: `/tmp/paydesk-e2e-failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}.png` }).catch(() => undefined);
});

afterAll(async () => {
  await h?.close();
});

async function open(screen: string) {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: screen, exact: true }).click();
}

async function fillTransaction(form: string, fields: { amount: string; phone: string; first?: string; last?: string }) {
  const scope = page.getByRole('form', { name: form });
  await scope.getByLabel(/^Amount/).fill(fields.amount);
  await scope.getByLabel('Phone number').fill(fields.phone);
  await scope.getByLabel('First name').fill(fields.first ?? 'Ada');
  await scope.getByLabel('Last name').fill(fields.last ?? 'Ndiaye');
  await scope.getByLabel('Email').fill('ada@example.com');
  return scope;
}

let firstExternalId = '';

describe('Paydesk in Chromium', () => {
  it('takes the token out of the address bar and keeps it where no page script can read it (an HttpOnly cookie)', async () => {
    // The fragment is the screen's address now, never the token.
    expect(new URL(page.url()).hash).toBe('#/overview');
    const readable = await page.evaluate(() => `${document.cookie} ${JSON.stringify({ ...sessionStorage })} ${JSON.stringify({ ...localStorage })}`);
    expect(readable).not.toContain(h.host.token);
    const cookies = await h.context.cookies(h.host.origin);
    expect(cookies.find((cookie) => cookie.value === h.host.token)).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('creates a payment to +237650000001 and watches it reach completed on the timeline', async () => {
    await open('New payment');
    const form = await fillTransaction('New payment', { amount: '25000', phone: '+237650000001' });
    await form.getByLabel('Description (optional)').fill('Invoice 2026-114');
    await form.getByRole('button', { name: 'Add metadata row' }).click();
    await form.getByLabel('Metadata key 1').fill('order');
    await form.getByLabel('Metadata value 1').fill('A-17');
    await form.getByLabel(/^Amount/).blur();
    firstExternalId = await form.getByLabel('External id').inputValue();
    expect(firstExternalId).toMatch(/^[0-9a-f-]{36}$/);
    await screenshot(page, 'new-payment');
    await form.getByRole('button', { name: 'Request payment' }).click();
    await page.getByRole('heading', { level: 1, name: '25,000 XAF' }).waitFor();
    await page.getByRole('status', { name: 'Status: Completed' }).waitFor({ timeout: STATE_TIMEOUT });
    const timeline = page.getByRole('list', { name: 'Timeline, newest first' });
    await expect(timeline.getByText('Request sent', { exact: true }).count()).resolves.toBe(1);
    // Newest first: the request is the last item.
    await expect(timeline.getByRole('listitem').last().innerText()).resolves.toContain('Request sent');
    await expect(page.getByText(firstExternalId).count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'timeline-completed');
  });

  it('creates a payment to +237650000008 that stays processing until Verify says completed', async () => {
    await open('New payment');
    const form = await fillTransaction('New payment', { amount: '7500', phone: '+237650000008', first: 'Jean', last: 'Mbarga' });
    await form.getByRole('button', { name: 'Request payment' }).click();
    await page.getByRole('heading', { level: 1, name: '7,500 XAF' }).waitFor();
    await page.getByRole('status', { name: 'Status: Processing' }).waitFor({ timeout: STATE_TIMEOUT });
    // The sandbox settles it at the provider; the stored status stays processing until verified.
    await page.getByText(/check [2-9]\d*, last seen processing/).waitFor({ timeout: STATE_TIMEOUT });
    await expect(page.getByRole('status', { name: 'Status: Processing' }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByRole('status', { name: 'Verify outcome' }).waitFor({ timeout: STATE_TIMEOUT });
    await page.getByRole('status', { name: 'Status: Completed' }).waitFor();
    await page.getByText('Verified with the provider: completed').waitFor();
    await screenshot(page, 'timeline-verified');
  });

  it('looks a payment up by its external id, and says plainly when an id is unknown', async () => {
    await open('Lookup');
    await page.getByRole('radio', { name: 'External id' }).check();
    await page.getByRole('searchbox', { name: 'External id' }).fill('no-such-reference');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('Payment with external id “no-such-reference” not found in sandbox for Local sandbox.').waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await screenshot(page, 'lookup-not-found');
    await page.getByRole('searchbox', { name: 'External id' }).fill(firstExternalId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { level: 1, name: '25,000 XAF' }).waitFor();
    await page.getByRole('status', { name: 'Status: Completed' }).waitFor();
    // The toggle is remembered.
    await open('Lookup');
    await expect(page.getByRole('radio', { name: 'External id' }).isChecked()).resolves.toBe(true);
  });

  it('explains a payout larger than the wallet balance, with what to do next', async () => {
    await open('New payout');
    const balanceText = await page.getByTestId('wallet-balance').innerText();
    const balance = Number(balanceText.replace(/[^\d]/g, ''));
    expect(balance).toBeGreaterThan(0);
    const form = await fillTransaction('New payout', { amount: String(balance + 1000), phone: '+237650000001', first: 'Awa', last: 'Fofana' });
    await form.getByRole('button', { name: 'Review payout' }).click();
    const explanation = page.getByText('The wallet balance does not cover the amount plus the fee.');
    const dialog = page.getByRole('dialog', { name: 'Confirm payout' });
    await dialog.waitFor();
    const inDialog = await dialog.getByText('The wallet balance does not cover the amount plus the fee.').count();
    if (inDialog === 0) {
      // The service did not quote a fee in advance: send, and the API answers INSUFFICIENT_FUNDS.
      await dialog.getByRole('button', { name: /^Send / }).click();
    }
    await explanation.first().waitFor();
    await page.getByText('Top up the wallet or send a smaller amount').first().waitFor();
    await screenshot(page, 'payout-insufficient-funds');
    if (inDialog > 0) await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('sends a payout within the balance after the confirmation step', async () => {
    await open('New payout');
    const form = await fillTransaction('New payout', { amount: '5000', phone: '+237650000001', first: 'Awa', last: 'Fofana' });
    await form.getByRole('button', { name: 'Review payout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm payout' });
    await dialog.getByText('Awa Fofana').waitFor();
    await screenshot(page, 'payout-confirm');
    await dialog.getByRole('button', { name: 'Send 5,000 XAF' }).click();
    await page.getByRole('heading', { level: 1, name: '5,000 XAF' }).waitFor();
    await page.getByRole('status', { name: /Status: (Processing|Initiated|Completed)/ }).waitFor();
  });

  it('shows the journal in History', async () => {
    await open('History');
    await page.getByText(/^\d+ transactions?$/).waitFor();
    await page.getByRole('button', { name: /Open payment of 25,000 XAF, Ada Ndiaye/ }).first().waitFor();
    await screenshot(page, 'history');
  });

  it('shows the local sandbox panel', async () => {
    await open('Sandbox');
    await page.getByRole('heading', { name: 'Outcomes by phone number' }).waitFor();
    await page.getByText('Running', { exact: true }).waitFor();
    await screenshot(page, 'sandbox');
    await page.getByRole('button', { name: 'Use +237650000009 for a payment' }).click();
    await expect(page.getByRole('form', { name: 'New payment' }).getByLabel('Phone number').inputValue()).resolves.toBe('+237650000009');
  });

  it('delivers webhooks to a URL set in the panel, shows the attempts, and redelivers', async () => {
    // The merchant's endpoint: refuses the first delivery about this test's payment, accepts the rest.
    // (Transactions of earlier tests may still be settling and send their own events here.)
    let received = 0;
    const hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const ours = Buffer.concat(chunks).toString('utf8').includes('"first_name":"Hook"');
        if (ours) received += 1;
        res.writeHead(ours && received === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/webhooks`;
    try {
      await open('Sandbox');
      await page.getByLabel(/^Webhook URL/).fill(hookUrl);
      await page.getByRole('button', { name: 'Save webhook URL' }).click();
      // The engine must have the URL before the payment's first status change, or nothing is queued.
      await page.getByRole('status', { name: 'Result of saving the webhook address' }).getByText(`Saved: events are sent to ${hookUrl}.`).waitFor({ timeout: STATE_TIMEOUT });
      await page.getByRole('button', { name: 'Use +237650000001 for a payment' }).click();
      const form = await fillTransaction('New payment', { amount: '3000', phone: '+237650000001', first: 'Hook', last: 'Test' });
      await form.getByRole('button', { name: 'Request payment' }).click();
      await page.getByRole('status', { name: 'Status: Completed' }).waitFor({ timeout: STATE_TIMEOUT });
      const transactionId = await page.locator('dt:text-is("Transaction id") + dd .mono').innerText();
      await open('Sandbox');
      // One delivery per status event; the first one the endpoint refused.
      const refused = page.getByRole('row').filter({ hasText: transactionId }).filter({ hasText: 'HTTP 500' });
      await refused.first().waitFor({ timeout: STATE_TIMEOUT });
      await refused.first().getByRole('button', { name: /^Redeliver / }).click();
      await refused.filter({ hasText: 'HTTP 200' }).first().waitFor({ timeout: STATE_TIMEOUT });
      expect(received).toBeGreaterThanOrEqual(2);
      await screenshot(page, 'sandbox-webhooks');
      await page.getByLabel(/^Webhook URL/).fill('');
      await page.getByRole('button', { name: 'Save webhook URL' }).click();
      await page.getByRole('status', { name: 'Result of saving the webhook address' }).getByText('Webhooks are off: no URL is set.').waitFor({ timeout: STATE_TIMEOUT });
    } finally {
      await new Promise((resolve) => hook.close(resolve));
    }
  });

  it('maintenance mode: the payment is refused with an explanation, then works again', async () => {
    await open('Sandbox');
    await page.getByRole('switch', { name: /Maintenance mode/ }).check();
    await page.getByText('(on: the API answers 503 MAINTENANCE_MODE)').waitFor();
    await open('New payment');
    const form = await fillTransaction('New payment', { amount: '1200', phone: '+237650000001' });
    await form.getByRole('button', { name: 'Request payment' }).click();
    await page.getByText('The service is offline for maintenance.').waitFor({ timeout: STATE_TIMEOUT });
    await open('Sandbox');
    await page.getByRole('switch', { name: /Maintenance mode/ }).uncheck();
    await page.getByText('Maintenance mode (off)').waitFor();
  });

  it('stores a secret in the keychain and leaves it nowhere in the page', async () => {
    const secret = 'sk_live_payout_E2Esecret_9f8e7d6c5b4a';
    await open('Settings');
    await page.getByRole('button', { name: 'Add profile' }).click();
    const form = page.getByRole('form', { name: 'New profile' });
    await form.getByLabel('Name').fill('Acme live');
    await form.getByLabel('Base URL').fill('https://api.example.com');
    await form.getByLabel('Environment').selectOption('live');
    await form.getByLabel('Payment public key').fill('pk_live_payment_acme01');
    await form.getByLabel('Payout public key').fill('pk_live_payout_acme01');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('heading', { name: 'Acme live' }).waitFor();
    await page.getByLabel('Payout secret key').fill(secret);
    await page.getByRole('button', { name: 'Save payout secret' }).click();
    await page.getByRole('button', { name: 'Replace payout secret' }).waitFor({ timeout: STATE_TIMEOUT });
    await page.getByText('Stored in the keychain').first().waitFor();
    expect(await page.content()).not.toContain(secret);
    const values = await page.evaluate(() => [...document.querySelectorAll('input, textarea, select')].map((el) => (el as HTMLInputElement).value));
    expect(values.join('\n')).not.toContain(secret);
    expect(JSON.stringify(await page.evaluate(() => ({ ...sessionStorage, ...localStorage })))).not.toContain(secret);
    await screenshot(page, 'settings');
  });

  it('switches to a live profile and shows the live marker', async () => {
    await page.getByRole('button', { name: 'Switch to Acme live' }).click();
    await page.getByRole('status', { name: 'Environment: LIVE, real money' }).waitFor();
    await expect(page.locator('.app-live').count()).resolves.toBe(1);
    await screenshot(page, 'live-marker');
    await open('New payout');
    await page.getByRole('status', { name: 'Environment: LIVE, real money' }).waitFor();
    const form = await fillTransaction('New payout', { amount: '15000', phone: '+237650000001' });
    await form.getByRole('button', { name: 'Review payout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm LIVE payout' });
    await dialog.getByLabel('Type the amount (XAF) to confirm').fill('1500');
    await expect(dialog.getByRole('button', { name: 'Confirm amount' }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel('Type the amount (XAF) to confirm').fill('15000');
    await screenshot(page, 'payout-live-confirm');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('combobox', { name: 'Active profile' }).selectOption({ label: 'Local sandbox (sandbox)' });
    await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  });

  it('shows a visible focus ring when moving with the keyboard, and Escape closes a dialog', async () => {
    await open('New payout');
    const form = await fillTransaction('New payout', { amount: '1000', phone: '+237650000001' });
    await form.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { tag: document.activeElement!.tagName, style: style.outlineStyle, width: style.outlineWidth };
    });
    expect(outline.style).not.toBe('none');
    expect(parseFloat(outline.width)).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Confirm payout' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect(page.getByRole('heading', { level: 1, name: 'New payout' }).count()).resolves.toBe(1);
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
