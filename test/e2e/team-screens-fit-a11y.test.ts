/**
 * The team screens in the axe and fit-to-1280 walks (issue 37 item 7; the approval screens are in
 * approvals-fit-a11y.test.ts, the single desktop's in a11y.test.ts and fit-1280.test.ts): Overview
 * and History reading the team's journal, and the Audit log, over a console on a team workspace (tester: finance, support and admin, so
 * every part shows), at 1280×800, in English and French, light and dark. No serious axe finding;
 * nothing cut, broken or wider than its box. Then at 1920×1080 the wide screens use the window.
 * Screenshots `team-<screen>-<language>-<theme>` and `team-<screen>-1920` in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Channel, ChannelInput, ChannelResults, Result } from '../../shared/api';
import { axeViolations, serious } from './axe';
import { fitProblems } from './fit';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage, type WorkspacePage } from './workspace-page';

// A policy the payouts below stay under (sent at once, into the team's journal) and the batch at the end goes over.
const team: WorkspacePage = useWorkspacePage({ person: 'tester', tiers: [{ minAmount: 1_000_000, approvals: 1 }], viewport: { width: 1280, height: 800 } });
let page: Page;

async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelResults[C]> {
  const handler = team.h.runtime.handlers[channel] as unknown as (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>>;
  const result = await handler(input);
  if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
  return result.value;
}

beforeAll(async () => {
  page = team.page;
  const pid = process.pid;
  await call('sandbox:topUp', { environment: 'sandbox', amount: 5_000_000, reason: 'Approvisionnement' });
  const people = [
    ['+237650000001', 'Jean-Baptiste Emmanuel', 'Mbarga-Ndongo de la Rivière', 'jean.mbarga1@entreprise-exemple.cm', 750_000],
    ['+237650000002', 'Awa', 'Nkemdirim', 'awa.nkemdirim@example.com', 45_000],
    ['+237650000009', 'Paul', 'Atangana', 'paul@example.com', 12_500],
  ] as const;
  for (const [i, [phone, first, last, email, amount]] of people.entries()) {
    const request = { payment_method: 'momo_cm', amount, phone_number: phone, external_id: `SAL-2026-11-DOUALA-AGENCE-CENTRALE-${pid}-${i}`, description: 'Salaire de novembre et prime de fin d’année', customer: { first_name: first, last_name: last, email } };
    const quote = await call('payouts:prepare', { request });
    await call('payouts:initiate', { request, confirmationToken: quote.confirmationToken });
  }
}, 120_000);

async function go(hash: string): Promise<void> {
  await page.evaluate((to) => (location.hash = to), hash);
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('main .loading, main .row-placeholder').length === 0, undefined, { timeout: 30_000 }).catch(() => undefined);
}

// Settings with the team's profiles and the workspace's card, and People, need a console host that can change
// its store: walked in settings-fit-a11y.test.ts (axe and 1280 px, both languages, both themes).
const SCREENS = ['overview', 'history', 'audit'] as const;

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('the team screens in %s, %s theme at 1280×800', (language, theme) => {
  it('have no serious axe finding and nothing cut, broken or wider than its box', async () => {
    await choosePreferences(page, language, theme);
    const problems: string[] = [];
    for (const screen of SCREENS) {
      await go(`#/${screen}`);
      if (screen === 'history') await expect.poll(() => page.locator('.history-row .row-button').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
      if (screen === 'audit') await expect.poll(() => page.locator('table.audit-table tbody tr').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      for (const f of serious(await axeViolations(page))) problems.push(`${screen}: axe ${f.impact} ${f.id} ${f.targets.join(' | ')}`);
      for (const problem of await fitProblems(page)) problems.push(`${screen}: ${problem}`);
      await screenshot(page, `team-${screen}-${language}-${theme}`);
    }
    if (problems.length > 0) console.log(`${language}/${theme}: ${problems.length} problems\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
    expect(team.h.pageErrors).toEqual([]);
  }, 180_000);
});

describe('the team screens at 1920×1080', () => {
  it('use the window’s width, not two thirds of it', async () => {
    await choosePreferences(page, 'en', 'light');
    await page.setViewportSize({ width: 1920, height: 1080 });
    for (const screen of SCREENS) {
      await go(`#/${screen}`);
      const { used, room } = await page.evaluate(() => {
        const content = document.querySelector<HTMLElement>('.content')!;
        const style = getComputedStyle(content);
        return { used: document.querySelector('main .screen')!.getBoundingClientRect().width, room: content.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
      });
      expect(used, screen).toBeGreaterThanOrEqual(room * 0.9);
      await screenshot(page, `team-${screen}-1920`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 120_000);
});

describe('a batch held for approval, confirmed at 1280×800', () => {
  it('the refusal takes focus and the whole dialog, with the ask for approval, stays inside the window', async () => {
    await choosePreferences(page, 'en', 'light');
    const fileName = `primes-equipe-${process.pid}.csv`;
    const header = 'phone_number,amount,first_name,last_name,email,description';
    const rows = Array.from({ length: 4 }, (_, i) => `+2376510000${i + 10},600000,Chantal,Essomba,chantal${i}@example.com,Prime de fin d’année`);
    await call('batches:import', { fileName, text: `${[header, ...rows].join('\n')}\n`, paymentMethod: 'momo_cm' });
    await go('#/batches');
    await page.locator('.batch-list tr', { hasText: fileName }).locator('button').first().click();
    await page.locator('main h1', { hasText: fileName }).waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Send 4 payouts' }).click();
    const refusal = dialog.getByTestId('batch-confirm-refusal');
    await refusal.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'batch-confirm-refusal');
    // No "Details:" repeating what the ask for approval says, and no raw figure ("2400000").
    expect(await refusal.textContent()).not.toMatch(/Details|\d{5,}|\(s\)/);
    const size = await dialog.evaluate((el) => ({ bottom: el.getBoundingClientRect().bottom, scroll: el.scrollHeight, client: el.clientHeight }));
    await screenshot(page, 'team-batch-confirm-approval-1280-en');
    expect(size.scroll).toBeLessThanOrEqual(size.client + 1);
    expect(size.bottom).toBeLessThanOrEqual(800);
  }, 120_000);
});
