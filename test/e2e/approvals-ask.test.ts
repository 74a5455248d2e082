/**
 * The maker's side in Chromium (fatou, finance, on a team workspace whose policy asks one approval
 * from 100,000 XAF): a covered payout sent from the form is refused with what it needs and a way
 * to ask, nothing sent; "Ask for approval" asks for exactly that payout (its external id); once
 * kofi approved it, the same form sends it and its timeline says who approved. English and French.
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

async function reviewAndSend(amountLabel: string): Promise<void> {
  await page.evaluate(() => (location.hash = '#/payout'));
  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByLabel(/^Amount/).fill('150000');
  await form.getByLabel('Phone number').fill('+237650000001');
  await form.getByLabel('First name').fill('Awa');
  await form.getByLabel('Last name').fill('Fofana');
  await form.getByLabel('Email').fill('awa@example.com');
  await form.getByRole('button', { name: 'Review payout' }).click();
  await page.getByRole('dialog', { name: 'Confirm payout' }).getByRole('button', { name: `Send ${amountLabel}` }).click();
}

describe('asking for approval from the payout form', () => {
  it('refuses a covered payout with what it needs, asks for exactly it, and sends it once another person approved', async () => {
    await reviewAndSend('150,000 XAF');
    const ask = page.getByRole('region', { name: 'Ask for approval' });
    await ask.getByText('This payout of 150,000 XAF needs 1 approval(s) by finance before it is sent.').waitFor();
    await page.getByText('The team’s policy needs an approval before this is sent.').waitFor();
    expect(await payoutInWorkspace()).toBe(0);
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, 'approvals-ask-payout-en');
    await ask.getByRole('button', { name: 'Ask for approval of this payout' }).click();
    await ask.getByText(/^Approval asked \(request \d+\)\. Send it again once it is approved: it keeps external id /).waitFor();
    await screenshot(page, 'approvals-asked-payout-en');

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
