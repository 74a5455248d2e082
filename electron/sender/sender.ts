/**
 * The team sender (issue 38; docs/team-sender.md): the console's own runtime without a screen,
 * logged in to the team workspace as a `paydesk_sender` login, holding the keys of the team
 * profiles given in its keys file (./keys-file.ts). The only login the database lets send for a
 * profile whose keys are with the sender (workspace migration 48).
 *
 * It reads the desktops' asks when the workspace's change channel says one was committed (LISTEN),
 * at start, and every `watchMs` as a fallback:
 * - a confirmed batch: the console's batch runner sends it, exactly as a desktop's Start does (rows
 *   claimed with SKIP LOCKED under a lease, the pending entry committed before each POST, rows in
 *   flight of a sender that died looked up by external id once its lease has run out); every sender
 *   helps send every open batch, their claims sharing the rows; the ask is answered once the batch
 *   is done, paused or cancelled;
 * - a payout: taken by one sender (SKIP LOCKED, a lease), sent through the console's own payout
 *   path (the journal's guard refuses an external id it knows: a payout a dead sender began is never
 *   sent again, its entry is followed up); answered with its entry.
 * A payout ask's lease is renewed while the sender works on it. With `webhooks`, it receives the
 * service's webhooks on `POST /webhooks/service` and follows up what they name; desktops leave the
 * follow-ups of the profiles it holds to it (sweeper.ts, watcher.ts). Of several senders, one at a
 * time takes the follow-up rounds (./follow-up-duty.ts: a lock the server releases when its holder dies).
 * Its start and stop are audit lines (`sender_start`, `sender_stop`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createConsoleRuntime, type ConsoleRuntime } from '../console/runtime';
import type { SettingsBackend, SettingsDocument } from '../console/settings';
import { openWorkspacePool, type WorkspacePool } from '../console/storage/postgres/db';
import { openWorkspaceStore } from '../console/storage/postgres/store';
import type { StoragePort } from '../console/storage/port';
import { answerAsk, markBatchTaken, openBatchAsks, renewAsk, takeAsk, type SendAsk } from '../console/storage/postgres/send-asks';
import { CHANGES_CHANNEL } from '../console/storage/postgres/schema-names';
import { createWebhookReceiver, type WebhookReceiver } from '../webhooks/receiver';
import { openFollowUpDuty } from './follow-up-duty';
import type { SenderKeys } from './keys-file';

/** Where the service's webhooks are posted to the sender (docs/team-sender.md). */
export const WEBHOOK_PATH = '/webhooks/service';

export interface SenderOptions {
  /** The sender's data folder (its log and its console's own files). */
  userDataDir: string;
  workspace: pg.PoolConfig;
  keys: SenderKeys;
  version: string;
  /** How often the asks are read anyway (ms): a fallback, new asks are heard on the workspace's change channel. */
  watchMs?: number;
  /** A payout ask's lease (ms), renewed every third of it while the sender works on the ask; a batch row's lease is the runner's (`batchClaims`). */
  askLeaseMs?: number;
  batchClaims?: { leaseMs: number; watchMs: number };
  /**
   * The service's webhooks, received on `POST /webhooks/service` at this host and port (0: any free
   * port) and followed up by this sender (a trigger to read the service, never the truth:
   * docs/decisions/webhooks-are-triggers.md). `secret`: the service's `whsec_` signing secret;
   * unsigned or badly signed deliveries are then refused 401.
   */
  webhooks?: { host: string; port: number; secret?: string };
  /** Told the webhook URL once it is served, before any ask is read (the team sandbox points its webhooks there: ./team-sandbox.ts). */
  onWebhookUrl?: (url: string) => void;
  /** One line per event (the CLI prints them as JSON; never a secret). */
  report?: (event: SenderEvent) => void;
}

export type SenderEvent =
  | { event: 'ready'; holder: string; profiles: string[]; webhookUrl: string | null }
  | { event: 'batch-sending'; batchId: string; askId: number }
  | { event: 'batch-ended'; batchId: string; state: string | null }
  | { event: 'ask-answered'; askId: number; kind: SendAsk['kind']; state: 'done' | 'refused'; entryId: string | null; code?: string; message?: string }
  | { event: 'follow-up-duty'; held: boolean }
  | { event: 'follow-up-round'; followed: number; open: number }
  | { event: 'fault'; message: string };

export interface TeamSender {
  holder: string;
  /** Stops taking asks, lets the batches in flight end (their rows answered), records the stop. */
  close(): Promise<void>;
  runtime: ConsoleRuntime;
  /** `http://host:port/webhooks/service` when webhooks are received, else null. */
  webhookUrl: string | null;
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
  // Of several senders, one takes the follow-up rounds; another takes them once it is gone (follow-up-duty.ts).
  let following: ConsoleRuntime | null = null;
  const duty = openFollowUpDuty(options.workspace, {
    everyMs: watchMs,
    taken: () => following?.followUpNow(),
    changed: (held) => report({ event: 'follow-up-duty', held }),
    fault: (message) => report({ event: 'fault', message }),
    roundEnded: ({ followed, open }) => {
      if (followed > 0) report({ event: 'follow-up-round', followed, open });
    },
  });
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
    followUpDuty: duty,
    headless: true,
  }).catch(async (error: unknown) => {
    await duty.close();
    await asks.end();
    throw error;
  });
  following = runtime;
  const held = new Set(options.keys.profileIds);
  let webhooks: { receiver: WebhookReceiver; server: Server; url: string } | null = null;
  if (options.webhooks) {
    try {
      webhooks = await serveWebhooks(runtime, options.webhooks);
      options.onWebhookUrl?.(webhooks.url);
    } catch (error) {
      await runtime.close();
      await duty.close();
      await asks.end();
      throw error;
    }
  }
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
    // Sent and not answered: the entry is outcome unknown, looked up now (nobody presses Look up here); the ask names it.
    if (sent.error.journalId) {
      lookUpLost(sent.error.journalId);
      return answer('done', sent.error.journalId, sent.error, sent.error.code);
    }
    return answer('refused', null, sent.error, sent.error.code);
  }

  /**
   * A payout this sender sent whose answer was lost: looked up by its external id now, by this sender
   * (as a desktop's user would press Look up; desktops do not read the service for a sender-held
   * profile). Not a follow-up round: one entry, whoever holds the follow-up duty.
   */
  function lookUpLost(entryId: string): void {
    void runtime.storage.journal
      .getEntry(entryId)
      .then((entry) => (entry?.externalId && entry.state === 'outcome_unknown' ? runtime.followReference({ externalId: entry.externalId, kind: entry.kind }) : 0))
      .catch((error: unknown) => report({ event: 'fault', message: `could not look up entry ${entryId}: ${error instanceof Error ? error.message : String(error)}` }));
  }

  /** Renews the ask's lease while `work` runs, so no other sender takes an ask this one is still sending. */
  async function whileHeld(ask: SendAsk, work: () => Promise<void>): Promise<void> {
    const renewing = setInterval(() => {
      renewAsk(asks, ask.id, holder, askLeaseMs).catch((error: unknown) => report({ event: 'fault', message: `could not renew the lease of ask ${ask.id}: ${error instanceof Error ? error.message : String(error)}` }));
    }, Math.max(50, Math.floor(askLeaseMs / 3)));
    try {
      await work();
    } finally {
      clearInterval(renewing);
    }
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
    if (sent.error.journalId) {
      lookUpLost(sent.error.journalId);
      return answer('done', sent.error.journalId, sent.error, sent.error.code);
    }
    return answer('refused', ask.entryId, sent.error, sent.error.code);
  }

  async function tick(): Promise<void> {
    for (const ask of await openBatchAsks(asks)) await sendBatch(ask);
    for (let ask = await takeAsk(asks, holder, askLeaseMs, [...held]); ask && !closing; ask = await takeAsk(asks, holder, askLeaseMs, [...held])) {
      if (ask.kind === 'payout') await whileHeld(ask, () => sendPayout(ask));
      else await whileHeld(ask, () => sendResend(ask));
    }
  }

  /** One read of the asks after the running one (a burst of notifications is one more read, not many). */
  let queued = false;
  function poke(): void {
    if (closing || queued) return;
    queued = true;
    ticking = ticking
      .then(() => {
        queued = false;
        return closing ? undefined : tick();
      })
      .catch((error: unknown) => report({ event: 'fault', message: error instanceof Error ? error.message : String(error) }));
  }
  const timer = setInterval(poke, watchMs);
  const listening = await listenForAsks(options.workspace, poke, (message) => report({ event: 'fault', message }));
  // Asks that waited while no sender ran are read before it says it is ready (new ones are then heard).
  poke();
  await ticking;
  report({ event: 'ready', holder, profiles: [...held], webhookUrl: webhooks?.url ?? null });

  return {
    holder,
    runtime,
    webhookUrl: webhooks?.url ?? null,
    async close() {
      closing = true;
      clearInterval(timer);
      await listening.close();
      if (webhooks) {
        await new Promise<void>((resolve) => webhooks!.server.close(() => resolve()));
        await webhooks.receiver.idle();
        webhooks.receiver.close();
      }
      await ticking;
      await runtime.batchesIdle();
      await asks.query(`SELECT paydesk_sender_audit('sender_stop', $1)`, [JSON.stringify({ holder })]).catch(() => undefined);
      await runtime.close();
      await duty.close();
      await asks.end();
    },
  };
}

/**
 * The webhook receiver (electron/webhooks/receiver.ts) on its own HTTP server, wired to this
 * sender's follow-ups: only `POST /webhooks/service` is served, anything else is 404 or 405.
 */
async function serveWebhooks(runtime: ConsoleRuntime, options: { host: string; port: number; secret?: string }): Promise<{ receiver: WebhookReceiver; server: Server; url: string }> {
  const receiver = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference), ...(options.secret ? { secret: options.secret } : {}) });
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const refuse = (status: number, message: string, extra: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...extra });
      response.end(JSON.stringify({ success: false, message }));
    };
    if (path !== WEBHOOK_PATH) return refuse(404, `nothing here: webhooks are posted to ${WEBHOOK_PATH}`);
    if (request.method !== 'POST') return refuse(405, `${WEBHOOK_PATH} takes POST only`, { allow: 'POST' });
    receiver.handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`could not receive webhooks on ${options.host}:${options.port}: ${error.message}`)));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { receiver, server, url: `http://${host}:${port}${WEBHOOK_PATH}` };
}

/**
 * New asks heard as they are committed: the workspace's change channel carries a `send_asks` change
 * for every ask and answer (workspace migration 48). A lost connection is opened again a second
 * later, with a read of the asks (what was asked meanwhile was not heard); the poll covers the gap.
 */
async function listenForAsks(config: pg.PoolConfig, heard: () => void, fault: (message: string) => void): Promise<{ close(): Promise<void> }> {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  const lost = (error: Error | null) => {
    if (closed || retry) return;
    fault(`the asks' change channel was lost (${error?.message ?? 'closed'}): listening again`);
    client?.end().catch(() => undefined);
    client = null;
    retry = setTimeout(() => {
      retry = null;
      void connect(true);
    }, 1_000);
  };
  /** `again`: after a lost connection, the asks are read once it is back. */
  async function connect(again = false): Promise<void> {
    if (closed) return;
    const { max: _max, idleTimeoutMillis: _idle, ...clientConfig } = config;
    const next = new pg.Client({ ...clientConfig, application_name: 'paydesk-sender-asks' });
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      try {
        if ((JSON.parse(message.payload ?? '') as { table?: unknown }).table === 'send_asks') heard();
      } catch {
        // not a change payload: nothing to hear
      }
    });
    next.on('error', (error) => lost(error));
    next.on('end', () => lost(null));
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (closed) await next.end();
      else if (again) heard();
    } catch (error) {
      lost(error instanceof Error ? error : new Error(String(error)));
    }
  }
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
