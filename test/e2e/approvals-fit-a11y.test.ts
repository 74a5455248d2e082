/**
 * The four-eyes screens in the axe and fit-to-1280 walks (issue 25 item 8; the other screens are in
 * a11y.test.ts and fit-1280.test.ts, on one desktop where these screens only say they need a team
 * workspace): Approvals with a payout and a batch waiting and one asked by this login, the approval
 * policy editor with tiers, and the Audit log with long subjects and before/after, at 1280×800, in
 * English and French, light and dark, over a console on a team workspace (tester: finance, support
 * and admin, so every part shows). No serious axe finding; nothing cut, broken or wider than its
 * box. Screenshots `four-eyes-<screen>-<language>-<theme>` in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkedRows, payoutRequest } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { fitProblems } from './fit';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';


const team = useWorkspacePage({
  person: 'tester', tiers: [{ minAmount: 100_000, approvals: 1 }, { minAmount: 1_000_000, approvals: 2, role: 'paydesk_admin' }], viewport: { width: 1280, height: 800 },
  before: async (workspaces, database) => {
    const fatou = workspaces.storeAs('fatou', database);
    await fatou.approvals!.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 250_000, external_id: 'FACT-2026-11-DOUALA-AGENCE-CENTRALE-0042' }), 'Facture du fournisseur principal pour novembre, agence de Bonanjo');
    await fatou.batches.create({ id: 'b-salaires', fileName: 'salaires-novembre-agence-centrale-douala.csv', fileHash: 'h', profile: { id: 'local-sandbox', name: 'Local sandbox', environment: 'sandbox' }, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(40), at: Date.now() });
    await fatou.approvals!.askBatch('b-salaires', 'XAF', 'Salaires de novembre');
    const tester = workspaces.storeAs('tester', database);
    await tester.approvals!.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 1_250_000, external_id: 'INV-2026-0050' }), 'Quarterly rent');
    const kofi = await workspaces.connectAs('kofi', database);
    await kofi.query(`SELECT paydesk_audit('send', 'entry:SAL-2026-11-DOUALA-AGENCE-CENTRALE-000123', NULL, '{"amount": 250000, "currency": "XAF", "phone_number": "+237650000001"}', 'Relancé après la coupure du réseau')`);
    await kofi.end();
  },
});
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function settle(): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0, undefined, { timeout: 30_000 }).catch(() => undefined);
}

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('Approvals, the policy editor and Audit in %s, %s theme at 1280×800', (language, theme) => {
  it('have no serious axe finding and nothing cut, broken or wider than its box', async () => {
    await choosePreferences(page, language, theme);
    const problems: string[] = [];
    const check = async (where: string) => {
      for (const f of serious(await axeViolations(page))) problems.push(`${where}: axe ${f.impact} ${f.id} ${f.targets.join(' | ')}`);
      for (const problem of await fitProblems(page)) problems.push(`${where}: ${problem}`);
      await screenshot(page, `four-eyes-${where}-${language}-${theme}`);
    };

    await page.evaluate(() => (location.hash = '#/approvals'));
    await settle();
    // Two requests wait for tester (fatou's payout and batch); one is tester's own.
    await expect.poll(() => page.locator('section[aria-labelledby="approvals-forMe-title"] .approval-card').count()).toBe(2);
    await expect.poll(() => page.locator('section[aria-labelledby="approvals-mine-title"] .approval-card').count()).toBe(1);
    await check('approvals');
    await page.locator('section.approval-policy').scrollIntoViewIfNeeded();
    await page.locator('#policy-tier-1-from').waitFor();
    await check('policy');

    await page.evaluate(() => (location.hash = '#/audit'));
    await page.locator('#audit-title').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('table.audit-table tbody tr').count()).toBeGreaterThanOrEqual(6);
    await check('audit');

    if (problems.length > 0) console.log(`${language}/${theme}: ${problems.length} problem(s)\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
    expect(team.h.pageErrors).toEqual([]);
  }, 120_000);
});
