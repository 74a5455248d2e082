/**
 * The Sandbox screen's service variants card in Chromium at 1280×800 over the real console and
 * engine (issue 35 item 4): variants ticked (by mouse and by keyboard) and applied are the engine's,
 * which then answers the console's own create with a 201; Turn all off brings the default engine
 * back. English and French, light and dark: screenshots, axe (serious and critical) and the
 * 1280 px fit checks, and no English word left in the French card.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { findEnglish } from './englishWords';
import { fitProblems } from './fit';
import { screenshot, startHarness, type Harness } from './harness';
import { choosePreferences } from './preferences';

let h: Harness;
let page: Page;
const STATE_TIMEOUT = 20_000;
const card = () => page.locator('.sandbox-variants');

async function openSandbox(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/sandbox'));
  await card().locator('h2').waitFor({ timeout: STATE_TIMEOUT });
  // The card's top under the sticky header.
  await card().evaluate((element) => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 70));
}

/** The status the engine answered the latest POST /v1/payments with (its request inspector). */
async function lastCreateStatus(): Promise<number | undefined> {
  const page = await h.runtime.handlers['sandbox:requests']({ limit: 50 });
  if (!page.ok) throw new Error(page.error.message);
  return page.value.requests.find((request) => request.method === 'POST' && request.path === '/v1/payments')?.status;
}

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 800 } });
  page = h.page;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('service variants on the Sandbox screen', () => {
  it('applies the variants ticked, the engine answers that way, and Turn all off restores the default', async () => {
    await openSandbox();
    await card().getByText('All off: the local sandbox answers the default way.').waitFor();
    await card().getByRole('checkbox', { name: '201 for a create' }).check();
    // By keyboard: focus the first box, Space ticks it.
    await card().getByRole('checkbox', { name: 'Duplicates accepted' }).focus();
    await page.keyboard.press('Space');
    expect(await card().getByRole('checkbox', { name: 'Duplicates accepted' }).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('variant-nulls-omitted');
    await card().getByRole('checkbox', { name: 'Connection reset after a create' }).check();
    await card().getByLabel('Reset every Nth create (1: each one)').fill('0');
    await card().getByRole('button', { name: 'Apply' }).click();
    await card().getByText('Give a whole number from 1 to 1,000.').waitFor();
    expect(h.runtime.engine?.control.variants.read()).toEqual({ enabled: [], resetEvery: 1 });
    // A reset every 1000th create: none of this test's.
    await card().getByLabel('Reset every Nth create (1: each one)').fill('1000');
    await card().getByRole('button', { name: 'Apply' }).click();
    await card().getByText('On: Duplicates accepted, 201 for a create, Connection reset after a create (every 1,000 creates).').waitFor({ timeout: STATE_TIMEOUT });
    expect(h.runtime.engine?.control.variants.read()).toEqual({ enabled: ['duplicates-accepted', 'created-201', 'reset-after-create'], resetEvery: 1000 });

    const created = await h.runtime.handlers['payments:create']({
      request: { payment_method: 'service_demo', amount: 5000, phone_number: '+237650000001', customer: { first_name: 'Awa', last_name: 'Ngo', email: 'awa@example.com' }, description: 'Variant 201', external_id: 'ORDER-e2e-variant' },
    });
    expect(created.ok).toBe(true);
    expect(await lastCreateStatus()).toBe(201);

    const problems: string[] = [];
    for (const [language, theme] of [['en', 'light'], ['en', 'dark'], ['fr', 'light'], ['fr', 'dark']] as const) {
      await choosePreferences(page, language, theme);
      await openSandbox();
      if (language === 'fr') {
        await card().getByRole('heading', { name: 'Variantes du service' }).waitFor();
        await card().getByText('Activées : Doublons acceptés, 201 pour une création, Connexion coupée après une création (une création sur 1 000).').waitFor();
        const words = await card().evaluate((element) => {
          const clone = element.cloneNode(true) as HTMLElement;
          for (const code of clone.querySelectorAll('code')) code.remove();
          return clone.innerText || clone.textContent || '';
        });
        for (const hit of findEnglish(words)) problems.push(`fr: English word "${hit.word}" in "${hit.line}"`);
      }
      for (const f of serious(await axeViolations(page))) problems.push(`${language}-${theme}: axe ${f.impact} ${f.id} ${f.targets.join(' | ')}`);
      for (const problem of await fitProblems(page)) problems.push(`${language}-${theme}: ${problem}`);
      await screenshot(page, `sandbox-variants-${language}-${theme}`);
    }
    expect(problems).toEqual([]);

    await choosePreferences(page, 'en', 'light');
    await openSandbox();
    await card().getByRole('button', { name: 'Turn all off' }).click();
    await card().getByText('All off: the local sandbox answers the default way.').waitFor({ timeout: STATE_TIMEOUT });
    expect(h.runtime.engine?.control.variants.read()).toEqual({ enabled: [], resetEvery: 1 });
    expect(await card().getByRole('checkbox', { name: '201 for a create' }).isChecked()).toBe(false);
    const again = await h.runtime.handlers['payments:create']({
      request: { payment_method: 'service_demo', amount: 5000, phone_number: '+237650000001', customer: { first_name: 'Awa', last_name: 'Ngo', email: 'awa@example.com' }, description: 'Variant off', external_id: 'ORDER-e2e-variant-off' },
    });
    expect(again.ok).toBe(true);
    expect(await lastCreateStatus()).toBe(200);
    expect(h.pageErrors).toEqual([]);
  });
});
