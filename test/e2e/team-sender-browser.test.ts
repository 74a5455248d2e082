/**
 * What two desktops show of the team sender, in real Chromium (issue 38; docs/team-sender.md "What
 * a desktop shows"): a throwaway PostgreSQL workspace, the sandbox engine over HTTP, a real
 * `paydesk-sender` process (its own login, the keys in a 0600 file), and two browser consoles on
 * the workspace (fatou on A, kofi on B; neither holds a key) on a team profile whose keys are with
 * the sender. A's batch of 5 rows is asked of the sender: A's and B's progress say the team sender
 * sends it, with no Help send; the sender sends it. A's payout through the form is asked of the
 * sender: its confirmation and its page say so, and B's page shows the same payout live. The
 * engine is asked to create each external id once. Screenshots in English and French. (The
 * browser harness's consoles run on a fixed store, with no workspace bar: Help send is offered by
 * neither screen here; that the screen never offers it for a sender-held batch on an open
 * workspace is test/renderer/team-sender-progress.test.tsx.)
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { createAsks, recordPayoutPosts, type PayoutPost } from '../helpers/engine-posts';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { makeTempDir } from '../temp-dir';
import { screenshot, startHarness, type Harness } from './harness';
import { choosePreferences } from './preferences';

const PROFILE_ID = 'team-payouts';
const dir = makeTempDir('paydesk-e2e-team-sender-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let posts: PayoutPost[] = [];
let keysFile: string;
let sender: SenderProcess | undefined;
let a: Harness;
let b: Harness;

/** `person`'s browser console on the workspace, on the sender-held profile. */
async function console_(person: Person): Promise<Harness> {
  const h = await startHarness({ openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)) });
  const activated = await h.runtime.handlers['profiles:activate']({ id: PROFILE_ID });
  if (!activated.ok) throw new Error(activated.error.message);
  await h.page.goto(h.host.url);
  await h.page.locator('.env-marker').waitFor();
  return h;
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_browser') THEN CREATE ROLE sender_browser LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_browser');
  await root.end();
  // Duplicates accepted: only the journal keeps an external id from being paid twice.
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, variants: ['duplicates-accepted'] });
  posts = recordPayoutPosts(engine);
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team payouts', 'sandbox', $2, 'SVC', 1, 'sender')`, [PROFILE_ID, engine.api.url]);
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  keysFile = join(dir, 'sender-keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }), { mode: 0o600 });
  chmodSync(keysFile, 0o600);
  a = await console_('fatou');
  b = await console_('kofi');
}, 240_000);

afterAll(async () => {
  sender?.child.kill('SIGTERM');
  await sender?.exited;
  await a?.close();
  await b?.close();
  await engine?.stop();
  await workspaces?.stop();
});

function startSender(): SenderProcess {
  const { host, port } = workspaces.server.config('sender_browser', database) as { host: string; port: number };
  const url = `postgres://sender_browser@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
  return spawnSender('sender', ['--workspace', url, '--keys', keysFile, '--data', join(dir, 'sender'), '--watch-ms', '300']);
}

const go = (page: Page, hash: string) => page.evaluate((to) => (location.hash = to), hash);
const BY_SENDER_BATCH = { en: 'Sent by the team sender, which holds this profile’s keys: its progress shows here live.', fr: 'Envoyé par l’expéditeur de l’équipe' };
const BY_SENDER_PAYOUT = { en: 'Sent by the team sender, which holds this profile’s keys: a finance desktop asked it, and this page follows the payout live.', fr: 'Envoyé par l’expéditeur de l’équipe, qui détient les clés de ce profil' };
const FOLLOWED = { en: 'Followed up by the team sender: its status updates here by itself.', fr: 'Suivie par l’expéditeur de l’équipe' };

const CSV = [
  'phone_number,amount,first_name,last_name,email,description,external_id,payment_method',
  ...[1, 2, 3, 4, 5].map((n) => `+23767000010${n},${n * 1000},Awa,Team,awa${n}@example.com,Advance ${n},TSB-${n},momo_cm`),
].join('\n');

let batchId = '';

describe('a batch on a sender-held profile, from two browser consoles', () => {
  it("is asked of the sender: A's and B's progress say the team sender sends it, with no Help send; the sender sends each row once", async () => {
    const page = a.page;
    await go(page, '#/batches');
    await page.getByRole('heading', { level: 1, name: 'Bulk payouts' }).waitFor();
    const file = join(dir, 'team-advances.csv');
    writeFileSync(file, `${CSV}\n`);
    await page.getByLabel('CSV file of payouts').setInputFiles(file);
    await page.getByRole('heading', { level: 1, name: 'team-advances.csv' }).waitFor();
    await page.getByRole('region', { name: 'Preview' }).getByText('Read by the team sender, which holds this profile’s keys.').waitFor();
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm batch' });
    await dialog.getByText(/^Sent by the team sender: it holds this profile’s keys/).waitFor();
    const send = dialog.getByRole('button', { name: 'Send 5 payouts' });
    await send.waitFor();
    await screenshot(page, 'team-sender-1-batch-confirm-en');
    await send.click();
    batchId = new URLSearchParams(await page.evaluate(() => location.hash.split('?')[1] ?? '')).get('batch') ?? '';
    expect(batchId).not.toBe('');

    // No sender runs yet: the ask waits, the batch is sending, and both desktops say who sends it.
    await page.getByText(BY_SENDER_BATCH.en).waitFor();
    expect(await page.getByRole('button', { name: 'Help send from this desktop' }).count()).toBe(0);
    await screenshot(page, 'team-sender-2-batch-progress-en');
    await go(b.page, `#/batches?batch=${batchId}`);
    await b.page.getByRole('heading', { level: 1, name: 'team-advances.csv' }).waitFor();
    await b.page.getByText(BY_SENDER_BATCH.en).waitFor();
    expect(await b.page.getByRole('button', { name: 'Help send from this desktop' }).count()).toBe(0);
    await screenshot(b.page, 'team-sender-3-batch-progress-of-b-en');
    await choosePreferences(page, 'fr', 'light');
    await go(page, `#/batches?batch=${batchId}`);
    await page.getByText(BY_SENDER_BATCH.fr, { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Aider à envoyer depuis ce poste' }).count()).toBe(0);
    await screenshot(page, 'team-sender-2-batch-progress-fr');
    await choosePreferences(page, 'en', 'light');
    await go(page, `#/batches?batch=${batchId}`);
    expect(posts).toEqual([]);

    // The sender starts, takes the waiting ask and sends the batch; both desktops follow it to the end.
    sender = startSender();
    await sender.next((event) => event.event === 'ready');
    await sender.next((event) => event.event === 'batch-ended' && event.batchId === batchId);
    const bar = (p: Page) => p.getByRole('progressbar', { name: 'Batch progress' });
    await expect.poll(() => bar(page).getAttribute('aria-valuenow'), { timeout: 60_000 }).toBe('5');
    await expect.poll(() => bar(b.page).getAttribute('aria-valuenow'), { timeout: 60_000 }).toBe('5');
    const asked = createAsks(posts);
    expect([...asked.keys()].sort()).toEqual(['TSB-1', 'TSB-2', 'TSB-3', 'TSB-4', 'TSB-5']);
    expect([...asked.values()].every((count) => count === 1)).toBe(true);
    expect(a.pageErrors).toEqual([]);
    expect(b.pageErrors).toEqual([]);
  }, 180_000);
});

describe('a payout on a sender-held profile, from two browser consoles', () => {
  it("is asked of the sender from A's form: the confirmation and the payout's page say so; B shows the same payout live; one POST", async () => {
    const page = a.page;
    await go(page, '#/payout');
    const form = page.getByRole('form', { name: 'New payout' });
    await form.getByLabel(/^Amount/).fill('4200');
    await form.getByLabel('Phone number').fill('+237670000042');
    await form.getByLabel('First name').fill('Awa');
    await form.getByLabel('Last name').fill('Fofana');
    await form.getByLabel('Email').fill('awa@example.com');
    await form.getByRole('button', { name: 'Review payout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm payout' });
    await dialog.getByText('Sent by the team sender: it holds this profile’s keys; this desktop asks it to send this payout.').waitFor();
    await screenshot(page, 'team-sender-4-payout-confirm-en');
    await dialog.getByRole('button', { name: 'Send 4,200 XAF' }).click();
    await page.getByRole('heading', { level: 1, name: '4,200 XAF' }).waitFor({ timeout: 60_000 });
    await page.getByText(BY_SENDER_PAYOUT.en).waitFor();
    const journalId = await page.evaluate(() => location.hash.replace(/^#\/timeline\//, '').split('?')[0]!);
    await page.getByLabel(/^Status: (Completed|Processing)/).first().waitFor({ timeout: 60_000 });
    // Only the sender reads the service for it (sender-records-its-profiles-answers.md): no Verify that always refuses.
    await page.getByText(FOLLOWED.en).waitFor();
    expect(await page.getByRole('button', { name: 'Verify' }).count()).toBe(0);
    await screenshot(page, 'team-sender-5-payout-timeline-en');

    // B: the same payout, written by the sender, on its own page.
    await go(b.page, `#/timeline/${journalId}`);
    await b.page.getByRole('heading', { level: 1, name: '4,200 XAF' }).waitFor();
    await b.page.getByText(BY_SENDER_PAYOUT.en).waitFor();
    await b.page.getByText(FOLLOWED.en).waitFor();
    expect(await b.page.getByRole('button', { name: 'Verify' }).count()).toBe(0);
    await screenshot(b.page, 'team-sender-6-payout-timeline-of-b-en');

    await choosePreferences(page, 'fr', 'light');
    await go(page, `#/timeline/${journalId}`);
    await page.getByText(BY_SENDER_PAYOUT.fr, { exact: false }).waitFor();
    await page.getByText(FOLLOWED.fr, { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Vérifier' }).count()).toBe(0);
    await screenshot(page, 'team-sender-5-payout-timeline-fr');

    const asked = createAsks(posts);
    const payoutIds = [...asked.keys()].filter((id) => !id.startsWith('TSB-'));
    expect(payoutIds).toHaveLength(1);
    expect(asked.get(payoutIds[0]!)).toBe(1);
    expect(a.pageErrors).toEqual([]);
    expect(b.pageErrors).toEqual([]);
  }, 180_000);
});
