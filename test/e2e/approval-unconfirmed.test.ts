/**
 * An approve whose answer was lost after the workspace committed it, and the workspace not
 * reachable again yet (docs/decisions/approval-races.md), in a real Chromium over kofi's console:
 * the page says it is not known yet whether the decision was recorded and what to do (nothing is
 * decided twice: the console never sends it again), and while the workspace is away no old list
 * offers the vote again; once it is back, Refresh shows the request approved, by kofi, once, and
 * the notice says the decision was recorded. The cut is exact: a proxy holds the server's answer to
 * paydesk_approve back until the server has committed, then closes both ends and refuses new
 * connections (test/helpers/pg-cut.ts). And on a request needing two approvals that carries a
 * colleague's: kofi's vote cut before it reaches the server is answered "nothing was recorded"
 * (the approve on the request is not this login's), and his next press decides it.
 * English and French; screenshots looked at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startPgCut, type PgCut } from '../helpers/pg-cut';
import { payoutRequest } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';

let cable: PgCut | undefined;
// Registered first, so it runs last: the console closes through the cable before the cable goes.
afterAll(async () => {
  await cable?.close();
});
const team = useWorkspacePage({
  person: 'kofi',
  tiers: [
    { minAmount: 100_000, approvals: 1 },
    { minAmount: 1_000_000, approvals: 2 },
  ],
  before: async (workspaces) => {
    cable = await startPgCut(workspaces.server.cluster);
  },
  host: () => cable!.host,
});
let page: Page;
beforeAll(() => {
  page = team.page;
});

const WORDS = {
  en: {
    refresh: 'Refresh',
    approve: (id: number) => `Approve request ${id}:`,
    unconfirmed: 'The connection to the team workspace was lost while your decision was on its way: whether it was recorded is not known yet.',
    nothingWaits: 'Nothing waits for your approval.',
    recorded: (id: number) => `Request ${id} is approved: it may be sent now.`,
    notRecorded: 'The connection to the team workspace was lost before your decision was recorded: nothing was recorded.',
  },
  fr: {
    refresh: 'Actualiser',
    approve: (id: number) => `Approuver la demande ${id} :`,
    unconfirmed: 'La connexion à l’espace d’équipe a été perdue pendant l’envoi de votre décision : on ne sait pas encore si elle a été enregistrée.',
    nothingWaits: 'Rien n’attend votre approbation.',
    recorded: (id: number) => `La demande ${id} est approuvée : l’envoi est possible.`,
    notRecorded: 'La connexion à l’espace d’équipe a été perdue avant l’enregistrement de votre décision : rien n’a été enregistré.',
  },
} as const;

describe.each(['en', 'fr'] as const)('an approve whose answer was lost, in %s', (language) => {
  const words = WORDS[language];

  it('says it is not known yet, sends nothing again, and shows it approved once the workspace is back', async () => {
    await choosePreferences(page, language, 'light');
    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    const asked = (await fatou.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 150_000, external_id: `UNC-${language}` })))!;
    await page.evaluate(() => (location.hash = '#/approvals'));
    await page.locator('#approvals-forMe-title').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    const approve = page.locator(`button[aria-label^="${words.approve(asked.id)}"]`);
    await approve.waitFor();

    // The workspace lost whole once the vote committed: the console's idle connections too.
    const cut = cable!.cutAfterCommit('paydesk_approve', { thenRefuse: true, everyConnection: true });
    await approve.click();
    const notice = page.locator('.notice-error', { hasText: words.unconfirmed });
    await notice.waitFor();
    await cut;
    // Committed, once, though the console could not know it.
    expect(await fatou.get(asked.id)).toMatchObject({ state: 'approved', decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve' }] });
    // Still away: the lists cannot be read, and no old list offers the vote again.
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    await notice.waitFor();
    expect(await approve.count()).toBe(0);
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `approvals-unconfirmed-${language}-light`);

    // The workspace is back: reading the lists again (a read, tried though the session is lost) shows the vote recorded.
    cable!.refuseNew = false;
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    await page.getByText(words.nothingWaits).waitFor();
    // The notice now answers the question it asked: the vote was recorded.
    await page.locator('.notice', { hasText: words.recorded(asked.id) }).waitFor();
    expect(await page.locator('.notice-error', { hasText: words.unconfirmed }).count()).toBe(0);
    expect(await approve.count()).toBe(0);
    expect((await fatou.get(asked.id))!.votes).toHaveLength(1);
    await screenshot(page, `approvals-unconfirmed-back-${language}-light`);
    // Sending stays stopped until the person's Try again finds the workspace (the console host's banner; here its call).
    expect(team.session!.state).toBe('lost');
    await team.session!.reconnect();
    expect(team.session!.state).toBe('open');
    expect(team.h.pageErrors).toEqual([]);
  });

  it("on a request needing two approvals that carries a colleague's, says nothing was recorded when this login's vote is not on it", async () => {
    await choosePreferences(page, language, 'light');
    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    const asked = (await fatou.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 1_500_000, external_id: `UNC2-${language}` })))!;
    expect(await team.workspaces.storeAs('tester', team.database).approvals!.approve(asked.id, asked.digest)).toMatchObject({ state: 'awaiting', approvalsGiven: 1 });
    await page.evaluate(() => (location.hash = '#/approvals'));
    await page.locator('#approvals-forMe-title').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    const approve = page.locator(`button[aria-label^="${words.approve(asked.id)}"]`);
    await approve.waitFor();

    // The workspace lost whole as kofi's vote leaves: it never reaches the server.
    const cut = cable!.cutBefore('paydesk_approve', { thenRefuse: true, everyConnection: true });
    await approve.click();
    await page.locator('.notice-error', { hasText: words.unconfirmed }).waitFor();
    await cut;
    expect((await fatou.get(asked.id))!.votes.map((vote) => vote.voter)).toEqual(['tester']);

    // Back: the request read again carries an approve, the colleague's; not this login's.
    cable!.refuseNew = false;
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    await page.locator('.notice-error', { hasText: words.notRecorded }).waitFor();
    expect(await page.locator('.notice-error', { hasText: words.unconfirmed }).count()).toBe(0);
    await screenshot(page, `approvals-not-recorded-colleague-${language}-light`);
    // Still kofi's to decide: the vote offered again counts once and decides it.
    await team.session!.reconnect();
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    await approve.click();
    await page.locator('.notice', { hasText: words.recorded(asked.id) }).waitFor();
    expect(await fatou.get(asked.id)).toMatchObject({ state: 'approved', approvalsGiven: 2, decidedBy: 'kofi' });
    expect(team.h.pageErrors).toEqual([]);
  });
});
