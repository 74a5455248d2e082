/**
 * The console's main-process runtime: wires the real keychain vault, settings, journal, HTTP client
 * and the in-process local sandbox engine into one handler table. The Electron shell and the
 * browser host both start this and only carry its calls and push events.
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PushEvent, PushEvents, StartNotice } from '../../shared/api';
import type { InspectedRequest } from '../../shared/contract';
import { TypedEmitter } from '../../shared/events';
import { createClient, type ClientOptions } from '../client';
import { REQUEST_EVENT_TOPIC, startEngine, type EngineEvent, type EngineHandle, type EngineOptions } from '@paydesk/sandbox';
import { systemClock, type Clock, type SandboxControl } from './deps';
import { createHandlerCore, type HandlerTable, type WatchOptions } from './handlers';
import type { FollowReference } from './sweeper';
import type { HandlerDeps } from './handlers/context';
import type { BatchRunner } from './batch/runner';
import { openJournal, type JournalDb } from './journal/entries';
import type { StoragePort } from './storage/port';
import { sqliteStore } from './storage/sqlite-store';
import { routeProcessLog } from '@paydesk/sandbox';
import { forwardChanges } from './live-changes';
import { followTeamProfiles } from './team-profiles-live';
import { desktopIdOf } from './desktop-id';
import { fileLogger } from './log';
import { sandboxControlFrom } from './sandbox-engine';
import { confSettingsBackend, createSettings, LOCAL_SANDBOX_ID, type SettingsBackend } from './settings';
import { createVault, removeKeysHeldBySender, type KeyringBackend } from './vault';
import { takeConsoleHolder, type ConsoleHolder } from './batch/console-holder';

export interface ConsoleRuntimeOptions {
  userDataDir: string;
  transport: 'electron' | 'browser';
  allowLive: boolean;
  version: string;
  settingsBackend?: SettingsBackend;
  /** A keyring in process (tests); without it, the OS keychain through a worker thread. */
  keyring?: KeyringBackend;
  /** The limit on each OS keychain call (KEYCHAIN_TIMEOUT_MS by default; tests shorten it). */
  keychainTimeoutMs?: number;
  /** For Electron: better-sqlite3 built for Electron's ABI. */
  betterSqliteNativeBinding?: string;
  /**
   * Options of the in-process engine; `false` runs without it. `rateLimit` 0 turns its per-key limit
   * off. `wallMicros` pins the engine's real time (tests: its rate-limit minute then moves only when
   * the test moves the engine clock).
   */
  engine?: { settleMs?: number; rateLimit?: { perKeyPerMinute: number }; wallMicros?: () => number; variants?: EngineOptions['variants'] } | false;
  clock?: Clock;
  watch?: Partial<WatchOptions>;
  client?: ClientOptions;
  /** Also print log lines to the console (development). */
  echoLog?: boolean;
  /**
   * The store the console records in. Absent: this desktop's SQLite journal (the default, and the
   * local sandbox's). Given: a team workspace's port (storage/postgres/store.ts), opened by the
   * caller and closed by the runtime; the SQLite journal is still opened beside it (issue 24).
   * `desktopId`: this data folder's own id (desktop-id.ts), for the workspace's connection setting.
   */
  openStorage?: (journal: JournalDb, desktop: { desktopId: string }) => Promise<StoragePort>;
  /** The batch runner's row claims (lease, size, state reads on a workspace); tests shorten the lease. */
  batchClaims?: HandlerDeps['batchClaims'];
  /** Who takes the follow-up rounds among several consoles following the same entries (the team senders). */
  followUpDuty?: HandlerDeps['followUpDuty'];
  /** No screen (the team sender): nobody presses Look up, so the sweeps look up this run's single sends left unknown. */
  headless?: boolean;
  /** Open entries read per page of a follow-up round (tests: a small page, to cross pages). */
  followUpPage?: number;
}

export interface ConsoleRuntime {
  handlers: HandlerTable;
  on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
  close(): Promise<void>;
  engineUrl: string | null;
  /** For tests and tools: the journal database, the log file and the engine handle. */
  journal: JournalDb;
  /** The storage port over that journal, as the handlers use it (the batch runner's row claims live in it). */
  storage: StoragePort;
  logPath: string;
  engine: EngineHandle | null;
  /** Resolves when every running watch has ended. */
  watchesIdle(): Promise<void>;
  /** Resolves when every batch run has ended (sent, paused, cancelled or interrupted). */
  batchesIdle(): Promise<void>;
  /** The batch runner itself (tools and tests that run a batch the batch handlers do not read, e.g. one in a workspace). */
  batchRunner: Pick<BatchRunner, 'run' | 'stop' | 'isRunning' | 'settled' | 'resumeLost'>;
  /** Resolves when the follow-up of open entries (at start, after a batch run) has ended. */
  followUpsIdle(): Promise<void>;
  /** Starts a follow-up burst now (the team sender, when it takes the follow-up duty). */
  followUpNow(): void;
  /** Reads the service for the open entries a callback names (electron/webhooks/receiver.ts); how many were read. */
  followReference(reference: FollowReference): Promise<number>;
}

export async function createConsoleRuntime(options: ConsoleRuntimeOptions): Promise<ConsoleRuntime> {
  mkdirSync(options.userDataDir, { recursive: true });
  const clock = options.clock ?? systemClock;
  const logger = fileLogger(options.userDataDir, options.echoLog ?? false);
  // The engine's and the transports' own lines go to the same file while this console runs.
  const unrouteProcessLog = routeProcessLog(logger);
  const pushes = new TypedEmitter<PushEvents>({
    onListenerError: (error, event) => logger.warn('a push listener threw', { event, error: error instanceof Error ? error.name : 'unknown' }),
  });
  function emit<E extends PushEvent>(event: E, payload: PushEvents[E]): void {
    pushes.emit(event, payload);
  }

  const notices: StartNotice[] = [];
  const journal = openJournal(join(options.userDataDir, 'journal.db'), options.betterSqliteNativeBinding ? { nativeBinding: options.betterSqliteNativeBinding } : {});
  // The console's journal paths go through the storage port, on this desktop's journal (closed with the journal).
  let storage: StoragePort;
  try {
    storage = options.openStorage ? await options.openStorage(journal, { desktopId: desktopIdOf(options.userDataDir, logger) }) : sqliteStore(journal, { settingsFile: join(options.userDataDir, 'team-settings.json') });
  } catch (error) {
    journal.close();
    unrouteProcessLog();
    await logger.close();
    throw error;
  }
  // Start-up's writes are for a login that may make them (docs/decisions/start-up-by-role.md): an
  // admin-only or support login has no payout of its own in flight and may not change a batch, so
  // the finance desktops do it at their start; the follow-ups run on finance and support desktops.
  const rights = await storage.loginRights();
  // Issue 25 item 5: the sign-in is the one action the workspace cannot see by itself; a console
  // whose sign-in cannot be written does not open (every later action of it would be unaccounted for).
  await storage.audit?.recordSignIn({ version: options.version });
  // On a workspace: this desktop's earlier console that stopped without leaving cannot be sending,
  // whatever its runs' heartbeat says: its runs end and its claims are freed now, not after a lease
  // (by a login that sends; another login leaves them in consoles.json for the next finance start).
  const consoles = storage.batches.endStoppedConsoles ? takeConsoleHolder(options.userDataDir, logger) : null;
  const lostAtStart = consoles && rights.sends ? await endStoppedConsoles(storage, consoles, clock.now(), logger) : 0;
  // On a workspace both only touch what this login left behind with no live lease (another desktop may be sending).
  const stale = rights.sends ? await storage.journal.markStalePending(clock.now()) : [];
  const unknownAtStart = stale.length + lostAtStart;
  if (unknownAtStart > 0) {
    logger.warn('pending journal entries from an earlier run are now outcome unknown', { count: unknownAtStart });
    notices.push({
      code: 'OUTCOME_UNKNOWN',
      message: `${unknownAtStart} request(s) were being sent when Paydesk last stopped; their outcome is unknown. Look them up by external id before sending again.`,
      params: { count: unknownAtStart },
    });
  }

  const interrupted = rights.sends ? await storage.batches.markInterrupted(clock.now()) : [];
  if (interrupted.length > 0) {
    logger.warn('batches that were being sent are now interrupted', { count: interrupted.length });
    notices.push({ code: 'BATCH_INTERRUPTED', message: `${interrupted.length} batch(es) were being sent when Paydesk last stopped: open them to resume (rows with an unknown outcome are looked up first).` });
  }

  let engine: EngineHandle | null = null;
  let sandbox: SandboxControl | null = null;
  if (options.engine !== false) {
    try {
      engine = await startEngine({
        host: '127.0.0.1',
        port: 0,
        db: join(options.userDataDir, 'sandbox.db'),
        settleMs: options.engine?.settleMs,
        ...(options.engine?.rateLimit ? { rateLimit: options.engine.rateLimit } : {}),
        ...(options.engine?.wallMicros ? { wallMicros: options.engine.wallMicros } : {}),
        ...(options.engine?.variants ? { variants: options.engine.variants } : {}),
        nativeBinding: options.betterSqliteNativeBinding,
      });
      sandbox = sandboxControlFrom(engine, { nativeBinding: options.betterSqliteNativeBinding });
    } catch (error) {
      logger.error('the local sandbox engine did not start', { error: error instanceof Error ? error.message : 'unknown' });
      await engine?.stop().catch(() => undefined);
      engine = null;
      notices.push({ code: 'SANDBOX_UNAVAILABLE', message: `The local sandbox did not start: ${error instanceof Error ? error.message : 'unknown error'}.` });
    }
  }

  let settings: ReturnType<typeof createSettings>;
  try {
    settings = createSettings(options.settingsBackend ?? confSettingsBackend(options.userDataDir), () => clock.now());
  } catch (error) {
    // An unreadable settings folder (permissions, disk) stops the start; leave nothing running.
    await engine?.stop();
    if (storage.kind !== 'sqlite') await storage.close();
    consoles?.close(); // it started no run
    journal.close();
    unrouteProcessLog();
    await logger.close();
    throw error;
  }
  for (const notice of settings.notices()) logger.warn('settings notice', { code: notice.code, backupPath: notice.backupPath });

  const vault = createVault(options.keyring, { ...(options.keychainTimeoutMs !== undefined ? { timeoutMs: options.keychainTimeoutMs } : {}) });
  const abort = new AbortController();
  // Every pending watch or batch wait listens on it: thousands at once during a large batch.
  setMaxListeners(0, abort.signal);
  const core = createHandlerCore({
    vault,
    settings,
    journal,
    storage,
    clientFactory: (profile, secretFor) => createClient(profile, secretFor, { now: () => clock.now(), ...options.client }),
    engine: sandbox,
    clock,
    emit,
    allowLive: options.allowLive,
    transport: options.transport,
    version: options.version,
    logger,
    watch: options.watch,
    ...(options.batchClaims || consoles ? { batchClaims: { ...options.batchClaims, ...(consoles ? { holder: consoles.holder } : {}) } } : {}),
    signal: abort.signal,
    ...(options.followUpDuty ? { followUpDuty: options.followUpDuty } : {}),
    ...(options.headless ? { headless: true } : {}),
    ...(options.followUpPage ? { followUpPage: options.followUpPage } : {}),
    notices: () => notices,
  });
  // A team workspace's profiles, known before anything resolves one (a batch resumed, a follow-up).
  await core.context.teamProfiles.refresh().catch((error: unknown) => logger.warn('could not read the team profiles', { error: error instanceof Error ? error.name : 'unknown' }));
  // Issue 38: a team profile whose keys are now with the team sender leaves no secret on this desktop.
  {
    const book = core.context.teamProfiles;
    const known = book.known();
    const moved = known.filter((profile) => profile.keysHeldBy === 'sender').map((profile) => ({ profileId: profile.id, ...book.keysOf(profile.id) }));
    if (moved.length > 0) {
      const movedIds = new Set(moved.map((profile) => profile.profileId));
      const stillUsed = new Set<string>();
      for (const profile of known) if (!movedIds.has(profile.id)) for (const key of Object.values(book.keysOf(profile.id))) stillUsed.add(key);
      for (const own of settings.profiles()) {
        if (movedIds.has(own.id)) continue;
        stillUsed.add(own.paymentPublicKey);
        stillUsed.add(own.payoutPublicKey);
      }
      await removeKeysHeldBySender(vault, moved, stillUsed, logger);
    }
  }

  // A status change in the local engine: read the transaction again and store all of it (the push
  // carries only the status). It is a sandbox event, not a webhook: no webhook URL is involved.
  const unsubscribe = sandbox?.onStatusChange((event) => {
    const profile = () => core.context.resolveProfile(LOCAL_SANDBOX_ID);
    storage.journal
      .findByTransactionId(event.transactionId)
      .then((entries) => {
        for (const entry of entries) {
          if (entry.profileId !== LOCAL_SANDBOX_ID) continue;
          void core.watcher.refresh(entry.id, profile, event.status, 'status changed in the local sandbox');
        }
        emit('sandbox:event', { kind: 'status', transactionId: event.transactionId, detail: event.status });
      })
      .catch((error: unknown) => logger.warn('could not record a sandbox status change', { error: error instanceof Error ? error.name : 'unknown' }));
  });

  // Everything else the engine does is shown live in the Sandbox panel.
  const unsubscribeActivity = engine?.onEvent(function forwardSandboxActivity(event: EngineEvent) {
    switch (event.type) {
      case 'status':
        return; // recorded above
      case 'wallet':
        return emit('sandbox:event', { kind: 'wallet', ...(event.transactionId ? { transactionId: event.transactionId } : {}), detail: `${event.environment} ${event.amount}` });
      case 'engine':
        return emit('sandbox:event', { kind: 'engine', detail: event.detail });
      case 'extension': {
        if (event.topic === REQUEST_EVENT_TOPIC) return emit('sandbox:request', event.data as InspectedRequest);
        if (event.topic !== 'webhook.delivery') return;
        const data = event.data as { transactionId?: unknown; status?: unknown } | null;
        return emit('sandbox:event', {
          kind: 'delivery',
          ...(typeof data?.transactionId === 'string' ? { transactionId: data.transactionId } : {}),
          ...(typeof data?.status === 'string' ? { detail: data.status } : {}),
        });
      }
      default: {
        const never: never = event;
        logger.warn('unknown engine event', { type: (never as { type: string }).type });
      }
    }
  });

  // What the store hears committed (a workspace: every desktop's writes) reaches the screens (live-changes.ts).
  const stopForwardingChanges = forwardChanges(storage.changes, (changed) => emit('journal:changed', changed));
  // A team profile an admin changed on any desktop: read the definitions again, then the screens list them (team-profiles-live.ts).
  const stopFollowingTeamProfiles = core.context.teamProfiles.onWorkspace()
    ? followTeamProfiles(storage.changes, {
        refresh: () => core.context.teamProfiles.refresh(),
        changed: () => emit('profiles:changed', { activeId: core.context.activeProfile().id }),
        failed: (error) => logger.warn('could not read the team profiles again', { error: error instanceof Error ? error.name : 'unknown' }),
      })
    : () => undefined;

  // Status changes that happened while the console was stopped (the engine settled them at its
  // start), and outcomes left unknown by the last stop, reach the journal and the batches now.
  if (rights.followsUp) core.sweeper.poke();
  else core.sweeper.close();
  if (!rights.sends) logger.info('start-up writes skipped: this login does not send (finance desktops mark what an earlier run left)', { followsUp: rights.followsUp });

  logger.info('console started', { transport: options.transport, allowLive: options.allowLive, engineUrl: engine?.api.url ?? null });
  let closed = false;
  return {
    handlers: core.handlers,
    on(event, listener) {
      return pushes.on(event, listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      abort.abort();
      unsubscribe?.();
      unsubscribeActivity?.();
      stopForwardingChanges();
      stopFollowingTeamProfiles();
      core.sweeper.close();
      await core.batches.idle();
      await core.sweeper.idle();
      await core.watcher.idle();
      await engine?.stop();
      // The SQLite store closes the journal itself; a workspace's connections close here.
      if (storage.kind !== 'sqlite') await storage.close();
      // Its runs have left: the next console on this folder has nothing of this one to end.
      consoles?.close();
      journal.close();
      vault.close();
      unrouteProcessLog();
      await logger.close();
    },
    engineUrl: engine?.api.url ?? null,
    journal,
    storage,
    logPath: logger.path,
    engine,
    watchesIdle: () => core.watcher.idle(),
    batchesIdle: () => core.batches.idle(),
    batchRunner: core.batches,
    followUpsIdle: () => core.sweeper.idle(),
    followUpNow: () => core.sweeper.poke(),
    followReference: (reference) => core.sweeper.followReference(reference),
  };
}

/** Ends this desktop's stopped consoles' runs and claims; returns the rows made outcome unknown (a failure leaves them to their lease). */
async function endStoppedConsoles(storage: StoragePort, consoles: ConsoleHolder, at: number, logger: ReturnType<typeof fileLogger>): Promise<number> {
  if (consoles.stopped.length === 0 || !storage.batches.endStoppedConsoles) return 0;
  try {
    const lost = await storage.batches.endStoppedConsoles(consoles.stopped, at);
    consoles.ended(consoles.stopped);
    logger.warn('this desktop\'s earlier console stopped while sending: its runs ended, its rows in flight are outcome unknown', { consoles: consoles.stopped.length, rows: lost.length });
    return lost.length;
  } catch (error) {
    logger.warn('could not end the runs of this desktop\'s earlier console: they end with their lease', { error: error instanceof Error ? error.name : 'unknown' });
    return 0;
  }
}
