/**
 * The team sender (issue 38; docs/team-sender.md): the console's own runtime without a screen,
 * logged in to the team workspace as a `paydesk_sender` login, holding the keys of the team
 * profiles given in its keys file (./keys-file.ts). The only login the database lets send for a
 * profile whose keys are with the sender (workspace migration 48).
 *
 * Every `watchMs` it reads the desktops' asks:
 * - a confirmed batch: the console's batch runner sends it, exactly as a desktop's Start does (rows
 *   claimed with SKIP LOCKED under a lease, the pending entry committed before each POST, rows in
 *   flight of a sender that died looked up by external id once its lease has run out); every sender
 *   helps send every open batch, their claims sharing the rows; the ask is answered once the batch
 *   is done, paused or cancelled;
 * - a payout: taken by one sender (SKIP LOCKED, a lease), sent through the console's own payout
 *   path (the journal's guard refuses an external id it knows: a payout a dead sender began is never
 *   sent again, its entry is followed up); answered with its entry.
 * Its start and stop are audit lines (`sender_start`, `sender_stop`).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createConsoleRuntime, type ConsoleRuntime } from '../console/runtime';
import type { SettingsBackend, SettingsDocument } from '../console/settings';
import { openWorkspacePool, type WorkspacePool } from '../console/storage/postgres/db';
import { openWorkspaceStore } from '../console/storage/postgres/store';
import type { StoragePort } from '../console/storage/port';
import { answerAsk, markBatchTaken, openBatchAsks, takeAsk, type SendAsk } from '../console/storage/postgres/send-asks';
import type { SenderKeys } from './keys-file';

export interface SenderOptions {
  /** The sender's data folder (its log and its console's own files). */
  userDataDir: string;
  workspace: pg.PoolConfig;
  keys: SenderKeys;
  version: string;
  /** How often the asks are read (ms). */
  watchMs?: number;
  /** A payout ask's lease (ms); a batch row's lease is the runner's (`batchClaims`). */
  askLeaseMs?: number;
  batchClaims?: { leaseMs: number; watchMs: number };
  /** One line per event (the CLI prints them as JSON; never a secret). */
  report?: (event: SenderEvent) => void;
}

export type SenderEvent =
  | { event: 'ready'; holder: string; profiles: string[] }
  | { event: 'batch-sending'; batchId: string; askId: number }
  | { event: 'batch-ended'; batchId: string; state: string | null }
  | { event: 'ask-answered'; askId: number; kind: SendAsk['kind']; state: 'done' | 'refused'; entryId: string | null; code?: string; message?: string }
  | { event: 'fault'; message: string };

export interface TeamSender {
  holder: string;
  /** Stops taking asks, lets the batches in flight end (their rows answered), records the stop. */
  close(): Promise<void>;
  runtime: ConsoleRuntime;
}

/** A settings store in memory: the sender's public keys by team profile; it has no profile of its own. */
function senderSettings(keys: SenderKeys): SettingsBackend {
  let document: SettingsDocument = {
    version: 1,
    activeProfileId: keys.profileIds[0] ?? 'none',
    profiles: [],
    teamKeys: Object.fromEntries(keys.profileIds.map((id) => [id, keys.publicKeysOf(id)!])),
  };
  return { path: null, read: () => structuredClone(document), write: (next) => void (document = structuredClone(next)) };
}

/**
 * The sender's console reads the team's profiles without who holds their keys: a desktop's console
 * asks the sender for a sender-held profile (handlers/team-sender-send.ts); the sender's own console
 * is the one that signs, so it must never ask itself.
 */
function signsItself(store: StoragePort): StoragePort {
  const profiles = store.teamProfiles;
  if (!profiles) return store;
  return {
    ...store,
    teamProfiles: { ...profiles, list: async () => (await profiles.list()).map(({ keysHeldBy: _holder, ...profile }) => profile) },
  };
}

export async function startTeamSender(options: SenderOptions): Promise<TeamSender> {
  const holder = `sender:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const report = options.report ?? (() => undefined);
  const watchMs = options.watchMs ?? 1_000;
  const askLeaseMs = options.askLeaseMs ?? 120_000;
  const asks: WorkspacePool = openWorkspacePool({ ...options.workspace, max: 2 });
  const { rows } = await asks.query<{ sender: boolean }>(`SELECT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') AS sender`);
  if (rows[0]?.sender !== true) {
    await asks.end();
    throw new Error('this login is not a team sender login (a member of paydesk_sender): ask the workspace\'s administrator (docs/team-sender.md)');
  }
  const runtime = await createConsoleRuntime({
    userDataDir: options.userDataDir,
    transport: 'browser',
    allowLive: true,
    version: options.version,
    engine: false,
    settingsBackend: senderSettings(options.keys),
    keyring: options.keys.keyring,
    openStorage: async () => signsItself(await openWorkspaceStore(options.workspace)),
    ...(options.batchClaims ? { batchClaims: options.batchClaims } : {}),
  });
  const held = new Set(options.keys.profileIds);
  await asks.query(`SELECT paydesk_sender_audit('sender_start', $1)`, [JSON.stringify({ holder, profiles: [...held], version: options.version })]);

  let closing = false;
  let ticking: Promise<void> = Promise.resolve();

  async function sendBatch(ask: SendAsk): Promise<void> {
    const batchId = ask.batchId!;
    if (!held.has(ask.profileId) || runtime.batchRunner.isRunning(batchId)) return;
    const state = (await runtime.storage.batches.summary(batchId))?.state ?? null;
    // A paused batch asked again (the ask still waiting) is a Resume; one this sender's run left paused is answered.
    const resume = state === 'paused' && ask.state === 'waiting';
    if (state === 'done' || state === 'cancelled' || (state === 'paused' && !resume) || state === null) {
      if (await answerAsk(asks, ask.id, null, { state: 'done', entryId: null, answer: { batchState: state } })) report({ event: 'ask-answered', askId: ask.id, kind: 'batch', state: 'done', entryId: null });
      return;
    }
    await markBatchTaken(asks, ask.id, holder);
    runtime.batchRunner.run(batchId);
    report({ event: 'batch-sending', batchId, askId: ask.id });
    void runtime.batchRunner.settled(batchId).then(async () => {
      report({ event: 'batch-ended', batchId, state: (await runtime.storage.batches.summary(batchId).catch(() => null))?.state ?? null });
    });
  }

  async function sendPayout(ask: SendAsk): Promise<void> {
    const { handlers } = runtime;
    const request = ask.request!;
    const answer = async (state: 'done' | 'refused', entryId: string | null, detail: unknown, code?: string) => {
      const message = state === 'refused' ? (detail as { message?: string } | null)?.message : undefined;
      if (await answerAsk(asks, ask.id, holder, { state, entryId, answer: detail })) report({ event: 'ask-answered', askId: ask.id, kind: 'payout', state, entryId, ...(code ? { code } : {}), ...(message ? { message } : {}) });
    };
    const active = await handlers['profiles:activate']({ id: ask.profileId });
    if (!active.ok) return answer('refused', null, active.error, active.error.code);
    const prepared = await handlers['payouts:prepare']({ request, typedAmount: request.amount });
    if (!prepared.ok) {
      // The journal knows this external id (a sender that died after its pending entry, or a payout sent
      // earlier): nothing is sent again; the ask names that entry, which the follow-ups look up.
      if (prepared.error.code === 'ALREADY_SENT') return answer('done', prepared.error.journalId ?? null, { alreadyInJournal: true }, 'ALREADY_SENT');
      return answer('refused', null, prepared.error, prepared.error.code);
    }
    const sent = await handlers['payouts:initiate']({ request, confirmationToken: prepared.value.confirmationToken });
    if (sent.ok) return answer('done', sent.value.id, { state: sent.value.state, status: sent.value.status ?? null, transactionId: sent.value.transactionId ?? null });
    if (sent.error.code === 'ALREADY_SENT') return answer('done', sent.error.journalId ?? null, { alreadyInJournal: true }, 'ALREADY_SENT');
    // Sent and not answered: the entry is outcome unknown and followed up; the ask names it.
    if (sent.error.journalId) return answer('done', sent.error.journalId, sent.error, sent.error.code);
    return answer('refused', null, sent.error, sent.error.code);
  }

  /**
   * A resend ask (a payout looked up and found missing): sent again through the console's resend
   * path, which keeps the journal's rules (outcome unknown, looked up, not found; its external id
   * sent once more under the same entry). Answered with the entry, or refused with the path's why.
   */
  async function sendResend(ask: SendAsk): Promise<void> {
    const answer = async (state: 'done' | 'refused', entryId: string | null, detail: unknown, code?: string) => {
      const message = state === 'refused' ? (detail as { message?: string } | null)?.message : undefined;
      if (await answerAsk(asks, ask.id, holder, { state, entryId, answer: detail })) report({ event: 'ask-answered', askId: ask.id, kind: 'resend', state, entryId, ...(code ? { code } : {}), ...(message ? { message } : {}) });
    };
    const sent = await runtime.handlers['transactions:resend']({ journalId: ask.entryId! });
    if (sent.ok) return answer('done', sent.value.id, { state: sent.value.state, status: sent.value.status ?? null, transactionId: sent.value.transactionId ?? null });
    // Sent and not answered (outcome unknown again, followed up), or sent again meanwhile by another ask: the ask names the entry.
    if (sent.error.journalId) return answer('done', sent.error.journalId, sent.error, sent.error.code);
    return answer('refused', ask.entryId, sent.error, sent.error.code);
  }

  async function tick(): Promise<void> {
    for (const ask of await openBatchAsks(asks)) await sendBatch(ask);
    for (let ask = await takeAsk(asks, holder, askLeaseMs, [...held]); ask && !closing; ask = await takeAsk(asks, holder, askLeaseMs, [...held])) {
      if (ask.kind === 'payout') await sendPayout(ask);
      else await sendResend(ask);
    }
  }

  const timer = setInterval(() => {
    ticking = ticking.then(() => (closing ? undefined : tick())).catch((error: unknown) => report({ event: 'fault', message: error instanceof Error ? error.message : String(error) }));
  }, watchMs);
  report({ event: 'ready', holder, profiles: [...held] });

  return {
    holder,
    runtime,
    async close() {
      closing = true;
      clearInterval(timer);
      await ticking;
      await runtime.batchesIdle();
      await asks.query(`SELECT paydesk_sender_audit('sender_stop', $1)`, [JSON.stringify({ holder })]).catch(() => undefined);
      await runtime.close();
      await asks.end();
    },
  };
}
