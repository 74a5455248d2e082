/**
 * A payment whose POST reached a proxy that dropped the connection: the console shows "outcome
 * unknown", looks it up by external id, and sends it again (same external id) only because the
 * service says it never arrived. The proxy forwards everything else to the real local engine.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let proxy: Server;
let proxyUrl = '';
let droppedPosts = 0;
let forwardedPosts = 0;

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  const engineUrl = h.runtime.engineUrl!;
  proxy = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/payments' && droppedPosts === 0) {
      // The request arrives whole, then the line goes dead before any answer.
      droppedPosts += 1;
      req.resume();
      req.on('end', () => req.socket.destroy());
      return;
    }
    if (req.method === 'POST') forwardedPosts += 1;
    const target = new URL(req.url ?? '/', engineUrl);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => proxy?.close(resolve));
});

describe('Outcome unknown in Chromium', () => {
  it('looks the payment up, then sends it again with the same external id only because it never arrived', async () => {
    const key = h.runtime.engine!.api.applications()[0]!.keys.find((k) => k.environment === 'sandbox' && k.type === 'payment')!;
    // A profile that reaches the same engine through the flaky proxy, set up as a user would.
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await nav.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Add profile' }).click();
    const form = page.getByRole('form', { name: 'New profile' });
    await form.getByLabel('Name').fill('Flaky line');
    await form.getByLabel('Base URL').fill(proxyUrl);
    await form.getByLabel('Payment public key').fill(key.publicKey);
    await form.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('heading', { name: 'Flaky line' }).waitFor();
    await page.getByLabel('Payment secret key').fill(key.secretKey);
    await page.getByRole('button', { name: 'Save payment secret' }).click();
    await page.getByRole('button', { name: 'Replace payment secret' }).waitFor();
    await page.getByRole('button', { name: 'Switch to Flaky line' }).click();
    await page.getByRole('combobox', { name: 'Active profile' }).locator('option:checked', { hasText: 'Flaky line' }).waitFor({ state: 'attached' });

    await nav.getByRole('button', { name: 'New payment' }).click();
    const payment = page.getByRole('form', { name: 'New payment' });
    await payment.getByLabel(/^Amount/).fill('4200');
    await payment.getByLabel('Phone number').fill('+237650000001');
    await payment.getByLabel('First name').fill('Line');
    await payment.getByLabel('Last name').fill('Drop');
    await payment.getByLabel('Email').fill('line@example.com');
    const externalId = await payment.getByLabel('External id').inputValue();
    await payment.getByRole('button', { name: 'Request payment' }).click();

    const unknown = page.getByRole('region', { name: 'Outcome unknown' });
    await unknown.waitFor({ timeout: 20_000 });
    await page.getByRole('status', { name: 'Status: Outcome unknown' }).waitFor();
    await page.getByText('No answer: outcome unknown').waitFor();
    expect(await unknown.getByRole('button', { name: /Send again/ }).count()).toBe(0);
    expect(droppedPosts).toBe(1);
    expect(forwardedPosts).toBe(0);
    await screenshot(page, 'outcome-unknown');

    await unknown.getByRole('button', { name: 'Look it up' }).click();
    await unknown.getByText(/never arrived, so it is safe to send again/).waitFor({ timeout: 20_000 });
    await unknown.getByRole('button', { name: 'Send again (same external id)' }).click();
    await page.getByRole('status', { name: 'Status: Completed' }).waitFor({ timeout: 20_000 });
    expect(forwardedPosts).toBe(1);
    await expect(page.getByText(externalId).count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'outcome-unknown-resent');
  });

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
