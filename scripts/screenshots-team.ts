/**
 * The README's screenshots of two desktops on one batch (issue 24, item 9), made for real and
 * reproducible: `npx tsx scripts/screenshots-team.ts` (writes docs/screenshots/team-*.png; another
 * folder with `PAYDESK_SCREENSHOTS=test-results/screenshots`).
 *
 * What runs: the cluster `npm run team:local` starts (in a temp folder, password logins on TCP),
 * with a second finance login; the local sandbox engine (packages/sandbox) under a per-key rate
 * limit low enough that the batch takes three of its minutes; two consoles as `npm run
 * start:browser` runs them (startConsoleHost with `--workspace` and PAYDESK_WORKSPACE_PASSWORD, and
 * the browser host), each with its own data folder, keychain and login, both with a "Team sandbox"
 * profile of the same id on that one engine; Chromium on each. Desktop A imports a CSV, confirms and
 * sends it from its screen; desktop B opens the same batch and presses "Help send from this
 * desktop" on its screen (`batches:join`, docs/decisions/help-send-from-this-desktop.md).
 *
 * Checked before anything is written (the script exits 1 otherwise): both desktops paid rows
 * (each entry's created_by, the database's session_user), the engine holds exactly one
 * transaction per external id, both screens show the same counts at the end, and B's History
 * shows payouts A's login paid.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startEngine, type EngineHandle } from '../packages/sandbox/src/engine';
import { engineInternals } from '../packages/sandbox/src/internals';
import { startBrowserHost, type BrowserHost } from '../electron/browser-host/server';
import { startConsoleHost, type ConsoleHost } from '../electron/console/workspace/console-host';
import type { SettingsBackend, SettingsDocument } from '../electron/console/settings';
import { startLocalWorkspace, stopLocalWorkspace, type LocalWorkspace } from '../electron/console/storage/postgres/local-workspace';
import { ROLES } from '../electron/console/storage/postgres/schema-names';
import { memoryKeyring } from '../test/helpers/memory-keyring';
import { CHROMIUM } from '../test/preflight';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = resolve(ROOT, process.env.PAYDESK_SCREENSHOTS ?? 'docs/screenshots');
const ROWS = 300;
/** Both desktops share the payout key, so one budget: 300 rows take three of the engine's minutes. */
const RATE_LIMIT_PER_MINUTE = 120;
const PROFILE_ID = 'team-sandbox';
const SECOND_FINANCE = 'finance_demo_b';
const VIEWPORT = { width: 1280, height: 860 };

interface Desk {
  name: string;
  login: string;
  host: ConsoleHost;
  browserHost: BrowserHost;
  page: Page;
  errors: string[];
}

const say = (line: string) => console.log(`screenshots-team: ${line}`);

/** A settings file in memory: the team's profile, the same id on every desktop (profiles are per desktop). */
function settingsWith(engine: EngineHandle): SettingsBackend {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  let stored: SettingsDocument = {
    version: 1,
    activeProfileId: PROFILE_ID,
    profiles: [
      {
        id: PROFILE_ID,
        name: 'Team sandbox',
        baseUrl: engine.api.url,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
        payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
      },
    ],
  };
  return { path: null, read: () => structuredClone(stored), write: (next) => void (stored = structuredClone(next)) };
}

function batchCsv(): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  const first = ['Awa', 'Jean', 'Chantal', 'Paul', 'Nadège', 'Ibrahim', 'Esther', 'Samuel', 'Grâce', 'Thierry'];
  const last = ['Nkemdirim', 'Mbarga', 'Essomba', 'Fotso', 'Ndongo', 'Bello', 'Tchoumi', 'Eto’o', 'Abena', 'Kamga'];
  for (let i = 1; i <= ROWS; i += 1) {
    const amount = 5_000 + ((i * 7_919) % 45) * 1_000;
    lines.push(`+23767${String(1_000_000 + i).slice(1).padStart(7, '0')},${amount},${first[i % 10]},${last[(i * 3) % 10]},agent${i}@example.com,Commission novembre ${i},COMM-NOV-${String(i).padStart(4, '0')}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function openDesk(name: string, login: string, password: string, workspace: LocalWorkspace, engine: EngineHandle, browser: Browser, dir: string): Promise<Desk> {
  const keyring = memoryKeyring();
  const host = await startConsoleHost({
    userDataDir: join(dir, `desk-${name.toLowerCase()}`),
    transport: 'browser',
    allowLive: false,
    version: '0.1.0',
    engine: false,
    keyring,
    settingsBackend: settingsWith(engine),
    workspace: { host: '127.0.0.1', port: workspace.port, database: workspace.database, user: login, tls: 'off' },
    workspacePassword: password,
  });
  const status = host.status();
  if (status.store !== 'workspace' || status.state !== 'open') throw new Error(`desktop ${name} did not open the workspace: ${JSON.stringify(status)}`);
  for (const key of engine.api.applications()[0]!.keys.filter((k) => k.environment === 'sandbox')) {
    const saved = await host.handlers['secrets:set']({ profileId: PROFILE_ID, keyType: key.type, secret: key.secretKey });
    if (!saved.ok) throw new Error(saved.error.message);
  }
  const browserHost = await startBrowserHost({ handlers: host.handlers, events: host, staticDir: join(ROOT, 'dist/renderer'), port: 0 });
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Africa/Douala' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(browserHost.url);
  await page.locator('.workspace-badge[data-state="open"]').waitFor({ timeout: 60_000 });
  return { name, login, host, browserHost, page, errors };
}

const go = (page: Page, hash: string) => page.evaluate((to) => (location.hash = to), hash);

/** The counters of the batch's progress card, by label (Sent, Accepted, …), without the rate and time left, which are each desktop's own. */
async function counters(page: Page): Promise<Record<string, string>> {
  const pairs = await page.locator('.batch-counters > *').evaluateAll((cells) => cells.map((cell) => [...cell.children].map((part) => part.textContent?.trim() ?? '')));
  return Object.fromEntries(pairs.filter((pair) => pair.length >= 2 && !/rate|time left/i.test(pair[0]!)).map((pair) => [pair[0]!, pair[1]!]));
}

const sentOnScreen = async (page: Page) => Number(await page.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow'));

async function until(check: () => Promise<boolean>, what: string, ms: number): Promise<void> {
  const give = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > give) throw new Error(`gave up waiting (${ms / 1000} s): ${what}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** Each desktop's shot side by side under its name, in one PNG drawn by Chromium itself. */
async function sideBySide(browser: Browser, shots: { caption: string; png: Buffer }[], file: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: VIEWPORT.width * shots.length + 24 * (shots.length + 1), height: VIEWPORT.height + 64 }, deviceScaleFactor: 1 });
  const figures = shots
    .map((shot) => `<figure><figcaption>${shot.caption}</figcaption><img src="data:image/png;base64,${shot.png.toString('base64')}"></figure>`)
    .join('');
  await page.setContent(
    `<style>body{margin:0;padding:12px;display:flex;gap:24px;background:#20242b;font:600 18px system-ui,sans-serif;color:#f2f4f7}figure{margin:0}figcaption{padding:6px 2px 10px}img{display:block;border:1px solid #59606b}</style>${figures}`,
  );
  await page.screenshot({ path: join(OUT, file) });
  await page.close();
  say(`wrote ${join(OUT, file)}`);
}

async function main(): Promise<void> {
  execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-team-shots-'));
  // As root the server runs as `postgres`, which must pass through this folder.
  chmodSync(dir, 0o711);
  const pgDir = join(dir, 'team-pg');
  let engine: EngineHandle | null = null;
  let browser: Browser | null = null;
  const desks: Desk[] = [];
  try {
    const workspace = await startLocalWorkspace(pgDir, { durable: false });
    const owner = new pg.Client({ host: '127.0.0.1', port: workspace.port, user: 'paydesk_owner', password: readFileSync(join(pgDir, 'owner-password'), 'utf8').trim(), database: workspace.database });
    await owner.connect();
    // A second finance person: both desktops send, each as its own login.
    const secondPassword = 'finance-b-' + Math.random().toString(36).slice(2);
    const literal = (await owner.query<{ q: string }>('SELECT quote_literal($1) AS q', [secondPassword])).rows[0]!.q;
    await owner.query(`CREATE ROLE ${SECOND_FINANCE} LOGIN PASSWORD ${literal}`);
    await owner.query(`GRANT ${ROLES.finance} TO ${SECOND_FINANCE}`);
    engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 1_000, rateLimit: { perKeyPerMinute: RATE_LIMIT_PER_MINUTE } });
    say(`workspace on 127.0.0.1:${workspace.port}, engine ${engine.api.url} (${RATE_LIMIT_PER_MINUTE} requests a minute per key)`);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    const financeA = workspace.people.find((person) => person.role === ROLES.finance)!;
    const a = await openDesk('A', financeA.login, financeA.password, workspace, engine, browser, dir);
    desks.push(a);
    const b = await openDesk('B', SECOND_FINANCE, secondPassword, workspace, engine, browser, dir);
    desks.push(b);

    // Desktop A: import, review, confirm, send, all on its screen.
    const csvFile = join(dir, 'commissions-novembre.csv');
    writeFileSync(csvFile, batchCsv(), 'utf8');
    await go(a.page, '#/batches');
    await a.page.getByRole('heading', { level: 1, name: 'Bulk payouts' }).waitFor();
    await a.page.getByLabel('CSV file of payouts').setInputFiles(csvFile);
    await a.page.getByRole('heading', { level: 1, name: 'commissions-novembre.csv' }).waitFor({ timeout: 60_000 });
    await a.page.getByText('Every row is valid.').waitFor();
    const batchId = new URLSearchParams((await a.page.evaluate(() => location.hash)).split('?')[1] ?? '').get('batch');
    if (!batchId) throw new Error('the imported batch has no id in the address');
    await a.page.getByRole('button', { name: 'Review and send' }).click();
    await a.page.getByRole('dialog', { name: 'Confirm batch' }).getByRole('button', { name: `Send ${ROWS} payouts` }).click();
    await a.page.getByRole('heading', { name: /^Sen(ding|t)$/ }).waitFor();

    // Desktop B: the same batch on its screen, offering to help; B presses the button and sends too.
    await go(b.page, `#/batches?batch=${encodeURIComponent(batchId)}`);
    await b.page.getByRole('heading', { level: 1, name: 'commissions-novembre.csv' }).waitFor({ timeout: 30_000 });
    const helpSend = b.page.getByRole('button', { name: 'Help send from this desktop' });
    await helpSend.waitFor({ timeout: 30_000 });
    await b.page.getByText('Another desktop of the team is sending this batch.', { exact: false }).waitFor();
    const helpShot = await b.page.screenshot();
    const helpSentBefore = await sentOnScreen(b.page);
    await helpSend.click();
    await b.page.getByText('Sending from this desktop.').waitFor({ timeout: 30_000 });
    if ((await helpSend.count()) !== 0) throw new Error('B still offers to help after joining');
    say(`batch ${batchId}: A sends from its screen, B pressed "Help send from this desktop" at ${helpSentBefore} sent`);

    // Mid-batch: the first minute's budget spent, both screens between the first row and the last.
    const mid = async () => (await sentOnScreen(a.page)) >= RATE_LIMIT_PER_MINUTE * 0.9 && (await sentOnScreen(b.page)) >= RATE_LIMIT_PER_MINUTE * 0.9;
    await until(mid, 'both screens past the first minute’s rows', 120_000);
    await new Promise((done) => setTimeout(done, 1_500));
    const midShots = [await a.page.screenshot(), await b.page.screenshot()];
    const midSent = [await sentOnScreen(a.page), await sentOnScreen(b.page)];
    if (midSent.some((n) => n >= ROWS)) throw new Error(`the mid-batch shot came too late: ${midSent.join(', ')} sent`);

    // The end: the batch done in the workspace, every row final on both screens.
    const store = a.host.runtime()!.storage;
    await until(async () => (await store.batches.summary(batchId))?.state === 'done', 'the batch done', 400_000);
    // Sent: the limit is lifted so each desktop's follow-ups learn the final statuses without waiting out its minutes.
    engine.control.setRateLimit(0);
    for (const desk of desks) await desk.page.getByText('Every row has a final status.').waitFor({ timeout: 300_000 });
    let countsA: Record<string, string> = {};
    let countsB: Record<string, string> = {};
    await until(async () => {
      [countsA, countsB] = [await counters(a.page), await counters(b.page)];
      return JSON.stringify(countsA) === JSON.stringify(countsB) && countsA.Sent === String(ROWS);
    }, 'the same counts on both screens', 60_000).catch((error: unknown) => {
      throw new Error(`${String(error)}: A ${JSON.stringify(countsA)}, B ${JSON.stringify(countsB)}`);
    });
    const endShots = [await a.page.screenshot(), await b.page.screenshot()];

    // Who paid what, from the database; one transaction per external id at the engine.
    const byLogin = (await owner.query<{ who: string; n: number }>('SELECT e.created_by AS who, count(*)::int AS n FROM batch_rows br JOIN entries e ON e.id = br.journal_id GROUP BY 1 ORDER BY 1')).rows;
    const paid = new Map(byLogin.map((row) => [row.who, row.n]));
    if (!(paid.get(a.login)! > 0 && paid.get(b.login)! > 0)) throw new Error(`both desktops should have paid rows: ${JSON.stringify(byLogin)}`);
    const twice = engineInternals(engine).db.prepare(`SELECT count(*) AS n FROM (SELECT external_id FROM transactions WHERE external_id LIKE 'COMM-NOV-%' GROUP BY external_id HAVING count(*) <> 1)`).get() as { n: number };
    const total = engineInternals(engine).db.prepare(`SELECT count(*) AS n FROM transactions WHERE external_id LIKE 'COMM-NOV-%'`).get() as { n: number };
    if (twice.n !== 0 || total.n !== ROWS) throw new Error(`the engine should hold one transaction per external id: ${total.n} transactions, ${twice.n} ids not once`);
    say(`A (${a.login}) paid ${paid.get(a.login)} rows, B (${b.login}) ${paid.get(b.login)}; the engine holds ${total.n} transactions, one per external id`);

    // Desktop B's History: the payouts, A's among them.
    await go(b.page, '#/history');
    await b.page.getByRole('heading', { level: 1, name: 'History' }).waitFor();
    const fromA = (await owner.query<{ external_id: string }>('SELECT external_id FROM entries WHERE created_by = $1', [a.login])).rows.map((row) => row.external_id);
    // The external ids inside the window (the list draws more rows than it shows).
    const shownIds = async (atLeast: number) => {
      await until(async () => (await b.page.getByText(/^COMM-NOV-\d{4}$/).count()) >= atLeast, 'History rows on B', 30_000);
      return b.page.getByText(/^COMM-NOV-\d{4}$/).evaluateAll((cells, height) => cells.filter((cell) => cell.getBoundingClientRect().bottom <= height).map((cell) => cell.textContent ?? ''), VIEWPORT.height);
    };
    let shown = await shownIds(6);
    let searched: string | null = null;
    if (!shown.some((id) => fromA.includes(id))) {
      // Whichever desktop claimed the last rows paid the newest ones: search the ten ids around A's last payout.
      searched = [...fromA].sort().at(-1)!.slice(0, -1);
      await go(b.page, `#/history?text=${encodeURIComponent(searched)}`);
      await until(async () => (await b.page.getByText(/^COMM-NOV-\d{4}$/).first().textContent())?.startsWith(searched!) === true, 'History searched on B', 30_000);
      shown = await shownIds(1);
    }
    const shownFromA = shown.filter((id) => fromA.includes(id));
    if (shownFromA.length === 0) throw new Error(`B's History shows none of A's payouts: ${shown.join(', ')}`);
    const historyShot = await b.page.screenshot();
    await owner.end();

    await sideBySide(browser, [{ caption: `Desktop B · ${b.login} · the batch desktop A is sending (${helpSentBefore} of ${ROWS} sent), before B presses "Help send from this desktop"`, png: helpShot }], 'team-0-help-send.png');
    await sideBySide(browser, [
      { caption: `Desktop A · ${a.login} · mid-batch: ${midSent[0]} of ${ROWS} sent`, png: midShots[0]! },
      { caption: `Desktop B · ${b.login} · the same batch: ${midSent[1]} of ${ROWS} sent`, png: midShots[1]! },
    ], 'team-1-mid-batch.png');
    await sideBySide(browser, [
      { caption: `Desktop A · ${a.login} · paid ${paid.get(a.login)} rows`, png: endShots[0]! },
      { caption: `Desktop B · ${b.login} · paid ${paid.get(b.login)} rows`, png: endShots[1]! },
    ], 'team-2-done.png');
    await sideBySide(browser, [{ caption: `Desktop B's History (${b.login})${searched ? ` searched for ${searched}` : ''} · paid by desktop A (${a.login}): ${shownFromA.map((id) => id.replace('COMM-NOV-', '')).join(', ')}`, png: historyShot }], 'team-3-history-of-b.png');
    for (const desk of desks) if (desk.errors.length > 0) throw new Error(`desktop ${desk.name}'s page failed: ${desk.errors.join('; ')}`);
    say(`same counts on both screens at the end: ${JSON.stringify(countsA)}`);
  } finally {
    for (const desk of desks) {
      await desk.browserHost.close().catch(() => undefined);
      await desk.host.close().catch(() => undefined);
    }
    await browser?.close().catch(() => undefined);
    await engine?.stop().catch(() => undefined);
    stopLocalWorkspace(pgDir);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`screenshots-team: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
