/**
 * Bulk payouts of a finance desktop on a team profile whose keys are with the team sender
 * (docs/team-sender.md, issue 38 item 1): the confirmation reads no balance and no key (the balance
 * is the sender's to read), Start and Resume write a batch ask instead of running here, Pause and
 * Cancel are state writes the sender's runner obeys, and the desktop follows the sender's run
 * through the workspace's change events. The engine over HTTP, a throwaway PostgreSQL, the sender
 * in this process, started once the desktop has asked (its asks wait for it).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { LOCAL_SANDBOX_ID, type SettingsBackend, type SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { readKeysFile } from '../../electron/sender/keys-file';
import { startTeamSender, type TeamSender } from '../../electron/sender/sender';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { createAsks, recordPayoutPosts, waitFor, type PayoutPost } from '../helpers/engine-posts';
import { memoryKeyring } from '../helpers/memory-keyring';
import { batchCsv } from './batch-helpers';
import { expectFail, expectOk, tempDir } from './helpers';

const HELD = 'team-batch-by-sender';
const dir = tempDir('paydesk-sender-desk-batch-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let sender: TeamSender | undefined;
let keysFile: string;
let desktop: ConsoleRuntime;
let posts: PayoutPost[] = [];
const keyring = memoryKeyring();
const secretReads: string[] = [];
const heardBatches = new Set<string>();

function memorySettings(document: SettingsDocument): SettingsBackend {
  let stored = document;
  return { path: null, read: () => structuredClone(stored), write: (next) => void (stored = structuredClone(next)) };
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_batch') THEN CREATE ROLE sender_batch LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_batch');
  await root.end();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, variants: ['duplicates-accepted'] });
  posts = recordPayoutPosts(engine);
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(
    `INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'By the sender', 'sandbox', $2, 'SVC', 1, 'sender')`,
    [HELD, engine.api.url],
  );
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [HELD]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }));
  chmodSync(keysFile, 0o600);

  const watched = ((service: string, account: string) => {
    const entry = keyring(service, account);
    return { ...entry, getPassword: () => (secretReads.push(account), entry.getPassword()) };
  }) as typeof keyring;
  desktop = await createConsoleRuntime({
    userDataDir: join(dir, 'desk-fatou'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend: memorySettings({ version: 1, activeProfileId: LOCAL_SANDBOX_ID, profiles: [] }),
    keyring: watched,
    client: { retry: { attempts: 1 } },
    openStorage: () => openWorkspaceStore(workspaces.server.config('fatou', database)),
  });
  desktop.on('journal:changed', (changed) => changed.batches.forEach((id) => heardBatches.add(id)));
}, 60_000);

afterAll(async () => {
  await desktop?.close();
  await sender?.close();
  await engine?.stop();
  await workspaces?.stop();
});

async function confirmed(name: string, count: number, tag: string) {
  const imported = expectOk(await desktop.handlers['batches:import']({ fileName: name, text: batchCsv(count, { tag }), paymentMethod: 'momo_cm' }));
  const confirmation = expectOk(await desktop.handlers['batches:prepare']({ batchId: imported.batch.id }));
  return { batchId: imported.batch.id, confirmation };
}

async function asksOf(batchId: string): Promise<{ asked_by: string; state: string }[]> {
  const sql = await workspaces.connectAs('tester', database);
  const { rows } = await sql.query<{ asked_by: string; state: string }>(`SELECT asked_by, state FROM send_asks WHERE kind = 'batch' AND batch_id = $1 ORDER BY id`, [batchId]);
  await sql.end();
  return rows;
}

it('confirms, starts, pauses, resumes and cancels batches of a sender-held profile by asking the sender: no key read, each row paid once by the sender, followed live', async () => {
  expectOk(await desktop.handlers['profiles:activate']({ id: HELD }));
  // The screens are told the keys are with the sender; a secret for it is never taken.
  expect(expectOk(await desktop.handlers['profiles:list']({})).profiles.find((p) => p.id === HELD)).toMatchObject({ keysWithSender: true, hasPayoutSecret: false });
  expectFail(await desktop.handlers['secrets:set']({ profileId: HELD, keyType: 'payout', secret: 'sk_sandbox_payout_never_here' }), 'CONFLICT');
  expect(keyring.entries.size).toBe(0);

  // Confirm: no balance read (the sender's to read), no key asked for.
  const one = await confirmed('sender-one.csv', 6, 'One');
  expect(one.confirmation).toMatchObject({ bySender: true, balance: null, balanceUnread: null, count: 6 });
  expect(expectOk(await desktop.handlers['batches:preview']({ batchId: one.batchId }))).toMatchObject({ bySender: true, balance: null });

  // Start writes an ask; nothing is sent from here (no sender yet: nothing at all is sent).
  const started = expectOk(await desktop.handlers['batches:start']({ batchId: one.batchId, confirmationToken: one.confirmation.confirmationToken }));
  expect(started.state).toBe('sending');
  expect(await asksOf(one.batchId)).toEqual([{ asked_by: 'fatou', state: 'waiting' }]);
  // Helping from this desktop is refused in words (it has no key), not by the database's gate.
  expectFail(await desktop.handlers['batches:join']({ batchId: one.batchId }), 'CONFLICT');

  // Pause and Resume: a state write, then a second ask.
  expect(expectOk(await desktop.handlers['batches:pause']({ batchId: one.batchId })).state).toBe('paused');
  expect(expectOk(await desktop.handlers['batches:resume']({ batchId: one.batchId })).state).toBe('paused');
  expect(await asksOf(one.batchId)).toEqual([{ asked_by: 'fatou', state: 'waiting' }, { asked_by: 'fatou', state: 'waiting' }]);

  // A second batch started, then cancelled before the sender is there: none of its rows is ever sent.
  const two = await confirmed('sender-two.csv', 3, 'Two');
  expectOk(await desktop.handlers['batches:start']({ batchId: two.batchId, confirmationToken: two.confirmation.confirmationToken }));
  expect(expectOk(await desktop.handlers['batches:cancel']({ batchId: two.batchId })).state).toBe('cancelled');
  expect(posts).toHaveLength(0);

  sender = await startTeamSender({ userDataDir: join(dir, 'sender'), workspace: workspaces.server.config('sender_batch', database), keys: readKeysFile(keysFile), version: 'test', watchMs: 100 });
  const situation = async () => JSON.stringify({ one: await desktop.handlers['batches:get']({ batchId: one.batchId }), asks: await asksOf(one.batchId), posts: posts.length });
  await waitFor(async () => (await asksOf(one.batchId)).every((ask) => ask.state === 'done'), 'the asks of batch one answered', situation, 60_000);
  await waitFor(async () => (await asksOf(two.batchId)).every((ask) => ask.state === 'done'), 'the ask of batch two answered', situation, 60_000);

  const detail = expectOk(await desktop.handlers['batches:get']({ batchId: one.batchId }));
  expect(detail.batch.state).toBe('done');
  expect(detail.sendingHere).toBe(false);
  expect(expectOk(await desktop.handlers['batches:get']({ batchId: two.batchId })).batch.state).toBe('cancelled');
  // Each row of batch one asked to be created once, none of batch two; no secret read on the desktop.
  const asked = createAsks(posts);
  expect(asked.size).toBe(6);
  expect([...asked.values()].every((n) => n === 1)).toBe(true);
  expect(secretReads).toEqual([]);
  expect(keyring.entries.size).toBe(0);
  const sql = await workspaces.connectAs('tester', database);
  const { rows } = await sql.query<{ created_by: string; n: string }>(
    `SELECT e.created_by, count(*) AS n FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq JOIN entries e ON e.id = br.journal_id WHERE b.id = $1 GROUP BY e.created_by`,
    [one.batchId],
  );
  await sql.end();
  expect(rows).toEqual([{ created_by: 'sender_batch', n: '6' }]);
  // The desktop followed the sender's run through the workspace's change events.
  expect(heardBatches.has(one.batchId)).toBe(true);
}, 180_000);

it('sends a payout found missing again by asking the sender: History\'s Send again writes a resend ask, the sender sends it once through the resend path', async () => {
  const request = { payment_method: 'momo_cm', amount: 7_300, phone_number: '+237670000073', external_id: 'RESEND-1', customer: { first_name: 'Awa', last_name: 'Again', email: 'awa@example.com' } };
  // An entry the sender wrote, whose answer was lost and which a look-up found missing.
  const asSender = await workspaces.server.connect('sender_batch', database);
  await asSender.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
     VALUES ('lost-1', $1, 'By the sender', 'sandbox', 'payout', 'pending', 'RESEND-1', 7300, 'XAF', '+237670000073', 'momo_cm', 'Awa', 'Again', 'awa@example.com', $2, 1, 1)`,
    [HELD, JSON.stringify(request)],
  );
  await asSender.query(`UPDATE entries SET state = 'outcome_unknown' WHERE id = 'lost-1'`);
  await asSender.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'lost-1'`);
  await asSender.end();
  expect(createAsks(posts).get('RESEND-1')).toBeUndefined();

  const entry = expectOk(await desktop.handlers['transactions:resend']({ journalId: 'lost-1' }));
  expect(entry).toMatchObject({ id: 'lost-1', externalId: 'RESEND-1', amount: 7_300 });
  expect(entry.transactionId).not.toBeNull();
  expect(createAsks(posts).get('RESEND-1')).toBe(1);
  expect(secretReads).toEqual([]);
  const sql = await workspaces.connectAs('tester', database);
  const { rows } = await sql.query<{ asked_by: string; state: string; entry_result: string }>(`SELECT asked_by, state, entry_result FROM send_asks WHERE kind = 'resend'`);
  await sql.end();
  expect(rows).toEqual([{ asked_by: 'fatou', state: 'done', entry_result: 'lost-1' }]);

  // Sent again already: a second Send again is refused by the journal's rules, nothing POSTed.
  expectFail(await desktop.handlers['transactions:resend']({ journalId: 'lost-1' }), 'CONFLICT');
  expect(createAsks(posts).get('RESEND-1')).toBe(1);
}, 90_000);
