/**
 * The Sandbox panel's request inspector in Chromium: a badly signed request to the in-process
 * engine appears live, and opening it shows its diagnosis in plain words (English, then French),
 * the string the sandbox signed and a curl that reproduces it; the sign helper gives headers and
 * snippets. Waits are for named states, never sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { canonicalBytes, computeSignature } from '@paydesk/sandbox';
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

afterAll(async () => {
  await h?.close();
});

/** A POST signed over the compact JSON but sent indented: the classic re-serialisation mistake. */
async function sendReserialised(externalId: string): Promise<number> {
  const body = { payment_method: 'service_demo', amount: 5000, phone_number: '+237650000001', external_id: externalId };
  const publicKey = 'pk_sandbox_payment_paydeskdemo01';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = computeSignature('sk_sandbox_payment_paydeskdemo01_secret', canonicalBytes({ publicKey, timestamp, method: 'POST', path: '/v1/payments', payload: JSON.stringify(body) }));
  const response = await fetch(`${h.runtime.engineUrl}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: publicKey, 'X-SVC-Timestamp': timestamp, 'X-SVC-Signature': signature, 'X-SVC-Environment': 'sandbox', 'Content-Type': 'application/json' },
    body: JSON.stringify(body, null, 2),
  });
  await response.text();
  return response.status;
}

describe('request inspector in Chromium', () => {
  it("shows a failing request live and explains why its signature did not match", async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Sandbox', exact: true }).click();
    const requests = page.getByRole('heading', { name: /^Requests/ });
    await requests.waitFor({ timeout: STATE_TIMEOUT });
    expect(await sendReserialised('e2e-inspector-1')).toBe(401);
    const row = page.getByRole('button', { name: 'Open request POST /v1/payments, answered 401' });
    await row.first().waitFor({ timeout: STATE_TIMEOUT });
    await row.first().click();
    const diagnosis = page.getByRole('note', { name: 'Why it failed' });
    await diagnosis.waitFor({ timeout: STATE_TIMEOUT });
    expect(await diagnosis.textContent()).toContain('You signed the compact JSON, but sent other bytes for the same JSON.');
    const canonical = page.getByRole('region', { name: 'The string the sandbox signed' });
    expect(await canonical.textContent()).toContain('pk_sandbox_payment_paydeskdemo01.');
    const curl = page.getByLabel('curl command', { exact: true });
    await curl.waitFor({ timeout: STATE_TIMEOUT });
    expect(await curl.textContent()).toContain('openssl dgst -sha256 -hmac');
    await page.getByRole('heading', { name: 'Why it failed' }).or(diagnosis).scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-inspector-diagnosis');
    expect(h.pageErrors).toEqual([]);
  });

  it('filters by status: a 2xx filter hides the refused request', async () => {
    await page.getByRole('combobox', { name: /^Status/ }).selectOption('2xx');
    await page.getByText('No request matches these filters.').or(page.getByRole('button', { name: /answered 200/ }).first()).waitFor({ timeout: STATE_TIMEOUT });
    expect(await page.getByRole('button', { name: /answered 401/ }).count()).toBe(0);
    await page.getByRole('combobox', { name: /^Status/ }).selectOption('');
    await page.getByRole('button', { name: /answered 401/ }).first().waitFor({ timeout: STATE_TIMEOUT });
  });

  it('signs a request in the helper and shows the headers and the PHP snippet', async () => {
    const form = page.getByRole('form', { name: 'Sign a request' });
    await form.getByRole('combobox', { name: /^Method/ }).selectOption('GET');
    await form.getByRole('textbox', { name: 'Path', exact: true }).fill('/v1/balance');
    await form.getByRole('button', { name: 'Sign' }).click();
    await page.getByRole('button', { name: 'Copy header X-SVC-Signature' }).waitFor({ timeout: STATE_TIMEOUT });
    expect(await page.getByText(/Signed at \d+ with pk_sandbox_payout_paydeskdemo01\./).count()).toBe(1);
    await page.getByRole('tab', { name: 'PHP' }).click();
    expect(await page.getByRole('tabpanel', { name: 'PHP' }).textContent()).toContain("hash_hmac('sha256'");
    await page.getByRole('tab', { name: 'PHP' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-inspector-sign-helper');
  });

  it('explains the same failure in French', async () => {
    const context = await h.browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'fr-CM', timezoneId: 'Africa/Douala' });
    try {
      const french = await context.newPage();
      await french.goto(h.host.url);
      await french.getByRole('navigation', { name: 'Écrans' }).getByRole('button', { name: 'Bac à sable', exact: true }).click();
      await french.getByRole('heading', { name: /^Requêtes/ }).waitFor({ timeout: STATE_TIMEOUT });
      const row = french.getByRole('button', { name: 'Ouvrir la requête POST /v1/payments, réponse 401' });
      await row.first().waitFor({ timeout: STATE_TIMEOUT });
      await row.first().click();
      const diagnosis = french.getByRole('note', { name: 'Pourquoi elle a échoué' });
      await diagnosis.waitFor({ timeout: STATE_TIMEOUT });
      expect(await diagnosis.textContent()).toContain('Vous avez signé le JSON compact, mais envoyé d’autres octets pour le même JSON.');
      await diagnosis.scrollIntoViewIfNeeded();
      await screenshot(french, 'sandbox-inspector-diagnosis-fr');
    } finally {
      await context.close();
    }
  });
});
