/**
 * The maker's side in Chromium (fatou, finance, on a team workspace whose policy asks one approval
 * from 100,000 XAF): the confirmation of a covered payout says it needs approval and offers to ask
 * instead of Send (issue 37 item 1: a step of the payout, not an error), nothing sent; asking asks
 * for exactly that payout (its external id); once kofi approved it, the same form sends it and its
 * timeline says who approved. (Sending it from its card: approval-card-send.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { useWorkspacePage } from './workspace-page';


const team = useWorkspacePage({ person: 'fatou', tiers: [{ minAmount: 100_000, approvals: 1 }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function payoutInWorkspace(): Promise<number> {
  const raw = await team.workspaces.connectAs('kofi', team.database);
  const { rows } = await raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM entries WHERE kind = 'payout'`);
  await raw.end();
  return rows[0]!.n;
}

async function review(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/payout'));
  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByLabel(/^Amount/).fill('150000');
  await form.getByLabel('Phone number').fill('+237650000001');
  await form.getByLabel('First name').fill('Awa');
  await form.getByLabel('Last name').fill('Fofana');
  await form.getByLabel('Email').fill('awa@example.com');
  await form.getByRole('button', { name: 'Review payout' }).click();
}

describe('asking for approval from the payout form', () => {
  it('says at the confirmation that a covered payout needs approval, asks for exactly it, and sends it once another person approved', async () => {
    await review();
    const dialog = page.getByRole('dialog', { name: 'Confirm payout' });
    const ask = dialog.locator('.ask-approval');
    await ask.waitFor();
    // What it needs, with a way to ask; no Send, no error.
    await ask.getByText(/150,000 XAF/).first().waitFor();
    expect(await dialog.getByRole('button', { name: 'Send 150,000 XAF' }).count()).toBe(0);
    expect(await dialog.locator('.notice-error').count()).toBe(0);
    expect(await payoutInWorkspace()).toBe(0);
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'approvals-ask-payout-en');
    await ask.locator('button.primary').click();
    await ask.locator('[role="status"]').waitFor();
    await screenshot(page, 'approvals-asked-payout-en');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const kofi = team.workspaces.storeAs('kofi', team.database).approvals!;
    const [waiting] = await kofi.waiting('forMe');
    expect(waiting).toMatchObject({ amount: 150_000, requestedBy: 'fatou' });
    await kofi.approve(waiting!.id, waiting!.digest, 'ok');

    // The same form (same external id) goes now.
    await page.getByRole('form', { name: 'New payout' }).getByRole('button', { name: 'Review payout' }).click();
    await page.getByRole('dialog', { name: 'Confirm payout' }).getByRole('button', { name: 'Send 150,000 XAF' }).click();
    await page.getByRole('heading', { level: 1, name: '150,000 XAF' }).waitFor();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    await page.getByText('kofi approved on').waitFor();
    expect(await payoutInWorkspace()).toBe(1);
    await screenshot(page, 'approvals-timeline-en');
    expect(team.h.pageErrors).toEqual([]);
  });
});
