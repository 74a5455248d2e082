/**
 * The Sandbox screen's scenarios and recordings in Chromium: a scenario added with the form is
 * listed and steers a real payment of the in-process engine; the engine's field error shows for a
 * bad phone number; Remove takes it away; Export HAR downloads a HAR file of what happened.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const STATE_TIMEOUT = 20_000;

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1360, height: 1000 } });
  page = h.page;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Sandbox', exact: true }).click();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('scenarios and recordings on the Sandbox screen', () => {
  it('adds, lists and removes a scenario; a bad value gets the engine’s field error', async () => {
    const form = page.getByRole('form', { name: 'Add a scenario' });
    await form.getByLabel('Phone number or external id').fill('0677');
    await form.getByRole('button', { name: 'Add scenario' }).click();
    await page.getByText('must be + followed by the country code', { exact: false }).first().waitFor({ timeout: STATE_TIMEOUT });

    await form.getByLabel('Phone number or external id').fill('+237677000555');
    await form.getByLabel('Failed code').selectOption('PAYER_NOT_FOUND');
    await form.getByLabel('Seconds in processing (empty: the settle delay)').fill('45');
    await form.getByLabel('Webhooks').selectOption('late');
    await form.getByLabel('Seconds late').fill('20');
    await form.getByRole('button', { name: 'Add scenario' }).click();
    await page.getByText(/^Scenario scn_\w+ added\.$/).waitFor({ timeout: STATE_TIMEOUT });
    const row = page.getByRole('row').filter({ hasText: '+237677000555' });
    await row.waitFor({ timeout: STATE_TIMEOUT });
    expect(await row.textContent()).toContain('45 s');
    expect(await row.textContent()).toContain('Late (20 s)');
    await page.getByRole('heading', { name: 'Scenarios per transaction' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-scenarios');

    // The engine has it: over its control API, as a developer's script sees it.
    const listed = h.runtime.engine?.control.scenarios.list() ?? [];
    expect(listed.map((s) => [s.match.value, s.status, s.failed_code, s.processing_seconds, s.webhooks, s.webhook_delay_seconds])).toEqual([
      ['+237677000555', 'failed', 'PAYER_NOT_FOUND', 45, 'late', 20],
    ]);

    await page.getByRole('button', { name: 'Remove the scenario for +237677000555' }).click();
    await page.getByText('No scenarios: the outcome table above decides.').waitFor({ timeout: STATE_TIMEOUT });
    expect(h.runtime.engine?.control.scenarios.list()).toEqual([]);
  });

  it('exports a HAR recording', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export HAR' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^paydesk-sandbox-\d{14}\.har$/);
    const har = JSON.parse(readFileSync((await file.path()) as string, 'utf8')) as { log: { version: string; entries: unknown[] } };
    expect(har.log.version).toBe('1.2');
    await page.getByText(/^paydesk-sandbox-\d{14}\.har: \d+ requests, \d+ deliveries\.$/).waitFor({ timeout: STATE_TIMEOUT });
    expect(h.pageErrors).toEqual([]);
  });
});
