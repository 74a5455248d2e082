/**
 * Issue 25 item 7 on the Approvals screen, in a real Chromium over kofi's console on a team
 * workspace (docs/decisions/approval-races.md): a Reject pressed just after tester gave the last
 * approval is told who approved it and who may still withdraw it; an Approve whose connection was
 * lost before it was recorded (kofi's backend ended while it waits for the request's lock) says
 * nothing was recorded and the state now. English and French; screenshots looked at.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { payoutRequest } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';


const team = useWorkspacePage({ person: 'kofi', tiers: [{ minAmount: 100_000, approvals: 1 }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

const fatou = () => team.workspaces.storeAs('fatou', team.database).approvals!;

const WORDS = {
  en: { refresh: 'Refresh', colon: ':', remark: 'Remark on request', reject: 'Reject request', approve: 'Approve request', late: 'Too late: request', maker: 'ask fatou, who asked', lost: 'nothing was recorded', now: '“Awaiting approval” now' },
  fr: { refresh: 'Actualiser', colon: ' :', remark: 'Remarque sur la demande', reject: 'Refuser la demande', approve: 'Approuver la demande', late: 'Trop tard : la demande', maker: 'demandez à fatou, qui l’a demandée', lost: 'rien n’a été enregistré', now: '« En attente d’approbation » maintenant' },
} as const;

async function askAndShow(externalId: string, words: (typeof WORDS)[keyof typeof WORDS]): Promise<{ id: number; digest: string }> {
  const asked = (await fatou().askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 250_000, external_id: externalId })))!;
  await page.evaluate(() => (location.hash = '#/approvals'));
  await page.locator('#approvals-forMe-title').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: words.refresh, exact: true }).click();
  await page.locator(`button[aria-label^="${words.approve} ${asked.id}${words.colon}"]`).waitFor();
  return asked;
}


describe.each(['en', 'fr'] as const)('a decision that did not happen, in %s', (language) => {
  const words = WORDS[language];

  it('a reject after the last approval: refused, who approved it and who may withdraw it; the maker reads approved', async () => {
    await choosePreferences(page, language, 'light');
    const asked = await askAndShow(`LATE-${language}`, words);
    await page.getByLabel(`${words.remark} ${asked.id}`).fill(language === 'fr' ? 'Mauvais fournisseur' : 'Wrong supplier');
    // tester approves between kofi's click and the console's answer (seen before the click, the
    // change events would take the card off his screen): held at the page's call.
    await page.route('**/api/invoke/approvals:reject', async (route) => {
      await team.workspaces.storeAs('tester', team.database).approvals!.approve(asked.id, asked.digest, 'ok');
      await route.continue();
    });
    await page.locator(`button[aria-label^="${words.reject} ${asked.id}${words.colon}"]`).click();
    const notice = page.locator('.notice-error', { hasText: words.late });
    await notice.waitFor();
    expect(await notice.innerText()).toContain(`${asked.id}`);
    expect(await notice.innerText()).toContain('tester');
    expect(await notice.innerText()).toContain(words.maker);
    await page.unroute('**/api/invoke/approvals:reject');
    expect(await fatou().get(asked.id)).toMatchObject({ state: 'approved', decidedBy: 'tester', votes: [{ voter: 'tester', vote: 'approve' }] });
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `approvals-late-reject-${language}-light`);
  });

  it('an approve whose connection was lost before it was recorded: "nothing was recorded", and the state now', async () => {
    await choosePreferences(page, language, 'light');
    const asked = await askAndShow(`LOST-${language}`, words);
    const holder = await team.workspaces.server.connect(undefined, team.database);
    const watcher = await team.workspaces.server.connect(undefined, team.database);
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM approval_requests WHERE id = $1 FOR UPDATE', [asked.id]);
    await page.locator(`button[aria-label^="${words.approve} ${asked.id}${words.colon}"]`).click();
    // kofi's vote waits for the row's lock (no deadline); then its connection is ended.
    let pid: number | undefined;
    while (pid === undefined) {
      const { rows } = await watcher.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE usename = 'kofi' AND datname = $1 AND wait_event_type = 'Lock'`, [team.database]);
      pid = rows[0]?.pid;
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await watcher.query('SELECT pg_terminate_backend($1)', [pid]);
    await holder.query('ROLLBACK');
    await Promise.all([holder.end(), watcher.end()]);
    const notice = page.locator('.notice-error', { hasText: words.lost });
    await notice.waitFor();
    expect(await notice.innerText()).toContain(words.now);
    expect(await fatou().get(asked.id)).toMatchObject({ state: 'awaiting', votes: [] });
    // Still waiting for him: pressing again counts once.
    await screenshot(page, `approvals-not-recorded-${language}-light`);
    await page.locator(`button[aria-label^="${words.approve} ${asked.id}${words.colon}"]`).click();
    await expect.poll(async () => (await fatou().get(asked.id))!.state).toBe('approved');
    expect((await fatou().get(asked.id))!.votes).toHaveLength(1);
    expect(team.h.pageErrors).toEqual([]);
  });
});
