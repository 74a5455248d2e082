/**
 * The console as the Electron shell and the browser host run it: a runtime on the store the
 * person chose (this desktop's journal, or a team workspace), and the calls that change that
 * choice. Changing it re-opens the console: the runtime is closed as a quit closes it (batches
 * stop and resume from their store, watches end) and a new one starts on the other store; the
 * window then loads again. Transports keep the same handler table and event source throughout.
 *
 * Money rule: a workspace that was chosen and does not open is never replaced by this desktop's
 * journal. The console then answers every call with the workspace's fault (its code and words),
 * except the workspace calls themselves: Try again, change the settings, or explicitly go back to
 * "This desktop only".
 */
import { CHANNEL_INPUTS, CHANNELS, PUSH_EVENTS, type Channel, type ChannelResults, type PushEvents, type Result, type WorkspaceStatus } from '../../../shared/api';
import { TypedEmitter } from '../../../shared/events';
import { processLog } from '@paydesk/sandbox';
import { fieldErrorsOf, HandlerFailure, type HandlerTable } from '../handlers';
import { createConsoleRuntime, type ConsoleRuntime, type ConsoleRuntimeOptions } from '../runtime';
import { confSettingsBackend, createSettings, LOCAL_SANDBOX_ID } from '../settings';
import { workspaceConnectionSchema, type WorkspaceConnection } from '../storage/postgres/connection';
import { describeWorkspace, openWorkspaceSession, WorkspaceFaultError, type WorkspaceSession } from '../storage/postgres/workspace-session';
import { saveWorkspacePassword, workspacePasswordAccount } from '../storage/postgres/workspace-password';
import { createVault, VaultError, type Vault } from '../vault';
import { readStoreChoice, saveStoreChoice, type StoreChoice } from './choice';
import { sessionPort } from './session-port';
import { desktopIdOf } from '../desktop-id';
import type { StoragePort } from '../storage/port';
import { placeOf, readLastWorkspace, saveLastWorkspace } from './last-workspace';

export interface ConsoleHostOptions extends Omit<ConsoleRuntimeOptions, 'openStorage'> {
  /** This run's workspace (the browser host's --workspace): used instead of the saved choice, not saved. */
  workspace?: WorkspaceConnection;
  /** This run's workspace password (PAYDESK_WORKSPACE_PASSWORD, for scripts), instead of the keychain's. */
  workspacePassword?: string;
}

export interface ConsoleHost {
  /** Every channel; stays the same object when the console re-opens. */
  handlers: HandlerTable;
  on<E extends keyof PushEvents>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
  status(): WorkspaceStatus;
  /** The running console, or null while the chosen workspace is not open. */
  runtime(): ConsoleRuntime | null;
  close(): Promise<void>;
}

type Current =
  | { kind: 'runtime'; runtime: ConsoleRuntime; readonly status: WorkspaceStatus; session: WorkspaceSession | null; unrelay: () => void }
  | { kind: 'fault'; status: WorkspaceStatus & { state: 'fault' }; handlers: HandlerTable };

type WorkspaceChannel = 'workspace:status' | 'workspace:test' | 'workspace:use' | 'workspace:useDesktop' | 'workspace:retry';
const WORKSPACE_CHANNELS = new Set<Channel>(['workspace:status', 'workspace:test', 'workspace:use', 'workspace:useDesktop', 'workspace:retry']);


/** A keychain that answers this one workspace login with the password given (a form's, or a script's), and the real one otherwise. */
function withPassword(vault: Vault, connection: WorkspaceConnection, password: string | undefined): Vault {
  if (password === undefined) return vault;
  const account = workspacePasswordAccount(connection);
  return {
    ...vault,
    hasSecret: async (key) => key === account || (await vault.hasSecret(key)),
    useSecret: async (key) => (key === account ? password : vault.useSecret(key)),
  };
}

function failureOf(error: unknown): Result<never> {
  if (error instanceof WorkspaceFaultError || error instanceof HandlerFailure || error instanceof VaultError) return { ok: false, error: { code: error.code, message: error.message } };
  processLog.error('workspace: a call failed unexpectedly', { error: error instanceof Error ? error.name : 'unknown' });
  return { ok: false, error: { code: 'INTERNAL', message: 'The console failed unexpectedly while changing its workspace; details are in the log.' } };
}

export async function startConsoleHost(options: ConsoleHostOptions): Promise<ConsoleHost> {
  const { workspace: flagWorkspace, workspacePassword, ...runtimeOptions } = options;
  const vault = createVault(options.keyring, { ...(options.keychainTimeoutMs !== undefined ? { timeoutMs: options.keychainTimeoutMs } : {}) });
  const pushes = new TypedEmitter<PushEvents>({});
  let choice: StoreChoice = flagWorkspace ? { store: 'workspace', connection: workspaceConnectionSchema.parse(flagWorkspace) } : readStoreChoice(options.userDataDir);
  // The script's password is for the flag's workspace only.
  const scriptPassword = flagWorkspace ? workspacePassword : undefined;
  let current: Current;
  let changing: Promise<unknown> = Promise.resolve();
  let closed = false;

  const log = (line: string) => processLog.info(line);

  async function openSession(connection: WorkspaceConnection, password: string | undefined): Promise<WorkspaceSession> {
    const usable = withPassword(vault, connection, password ?? (choice.store === 'workspace' && flagWorkspace && sameWorkspace(connection, choice.connection) ? scriptPassword : undefined));
    return openWorkspaceSession({ connection, vault: usable, log, desktopId: desktopIdOf(options.userDataDir) });
  }

  function relay(runtime: ConsoleRuntime): () => void {
    const offs = PUSH_EVENTS.map((event) => runtime.on(event, (payload) => pushes.emit(event, payload as never)));
    return () => offs.forEach((off) => off());
  }

  async function runtimeOn(session: WorkspaceSession | null, connection: WorkspaceConnection | null): Promise<Current> {
    const runtime = await createConsoleRuntime({ ...runtimeOptions, ...(session ? { openStorage: () => sessionPort(session) } : {}) });
    const unrelay = relay(runtime);
    if (!session || !connection) {
      const last = readLastWorkspace(options.userDataDir);
      return { kind: 'runtime', runtime, status: { store: 'desktop', ...(last ? { last } : {}) }, session: null, unrelay };
    }
    const who = { login: session.who.login, roles: [...session.who.roles] };
    const place = placeOf(connection);
    return {
      kind: 'runtime',
      runtime,
      // Lost while open: sending stopped until Try again finds the workspace (the session refuses writes meanwhile).
      get status(): WorkspaceStatus {
        return { store: 'workspace', place, state: session.state === 'lost' ? 'lost' : 'open', who, schemaVersion: session.schemaVersion };
      },
      session,
      unrelay,
    };
  }

  /** Opens the console on the current choice; a workspace that does not open leaves the console in its fault, never on this desktop's journal. */
  async function openOnChoice(session: WorkspaceSession | null = null): Promise<Current> {
    if (choice.store === 'desktop') return runtimeOn(null, null);
    const connection = choice.connection;
    try {
      const opened = session ?? (await openSession(connection, undefined));
      try {
        return await runtimeOn(opened, connection);
      } catch (error) {
        await opened.close();
        throw error;
      }
    } catch (error) {
      if (!(error instanceof WorkspaceFaultError)) throw error;
      processLog.warn(`workspace ${describeWorkspace(connection)}: not opened at start, ${error.code}; nothing is recorded until it opens or the person chooses this desktop only`);
      return faultMode(connection, error);
    }
  }

  function faultMode(connection: WorkspaceConnection, fault: WorkspaceFaultError): Current {
    const status = { store: 'workspace' as const, place: placeOf(connection), state: 'fault' as const, fault: { code: fault.code, message: fault.message } };
    const settings = createSettings(options.settingsBackend ?? confSettingsBackend(options.userDataDir));
    const table = {} as Record<Channel, (input: unknown) => Promise<Result<unknown>>>;
    for (const channel of CHANNELS) table[channel] = async () => ({ ok: false, error: { code: fault.code, message: fault.message } });
    // The window still starts in the person's language and theme, to say what is wrong.
    table['app:info'] = async () => ({
      ok: true,
      value: { version: options.version, transport: options.transport, activeProfileId: settings.activeProfileId(), allowLive: options.allowLive, language: settings.language(), theme: settings.theme() },
    });
    return { kind: 'fault', status, handlers: table as HandlerTable };
  }

  /** One change at a time; calls arriving meanwhile wait for the console it leads to. */
  function change<T>(work: () => Promise<T>): Promise<T> {
    const next = changing.then(work);
    changing = next.catch(() => undefined);
    return next;
  }

  async function closeCurrent(): Promise<void> {
    if (current.kind !== 'runtime') return;
    current.unrelay();
    // Closes the workspace session too (the runtime closes its store).
    await current.runtime.close();
  }

  async function refuseWhileSending(): Promise<void> {
    if (current.kind !== 'runtime') return;
    const listed = await current.runtime.handlers['batches:list']({});
    if (listed.ok && listed.value.batches.some((batch) => batch.state === 'sending')) {
      throw new HandlerFailure('CONFLICT', 'A batch is being sent: pause it before changing where this console records.');
    }
  }

  async function moveAudited(store: StoragePort, move: 'leave_workspace' | 'join_workspace', to?: 'desktop' | 'another workspace'): Promise<void> {
    if (!store.audit) throw new HandlerFailure('CONFLICT', 'This workspace has no audit log: the console cannot record the move, so it does not make it.');
    await store.audit.recordWorkspaceMove(move, { version: options.version, desktopId: desktopIdOf(options.userDataDir), ...(to ? { to } : {}) });
  }

  const implementations: { [C in WorkspaceChannel]: (input: never) => Promise<ChannelResults[C]> } = {
    'workspace:status': async () => current.status,
    'workspace:test': async (input: { connection: WorkspaceConnection; password?: string }) => {
      const connection = workspaceConnectionSchema.parse(input.connection);
      const session = await openSession(connection, input.password);
      const answer = { who: { login: session.who.login, roles: [...session.who.roles] }, schemaVersion: session.schemaVersion };
      try {
        // The password that opened it is kept, as Use keeps it: the form empties its field after the test.
        if (input.password !== undefined) await saveWorkspacePassword(vault, connection, input.password);
      } finally {
        await session.close();
      }
      return answer;
    },
    'workspace:use': (input: { connection: WorkspaceConnection; password?: string }) =>
      change(async () => {
        const connection = workspaceConnectionSchema.parse(input.connection);
        await refuseWhileSending();
        // Opened before anything changes: a workspace that does not answer leaves the console as it was.
        const session = await openSession(connection, input.password);
        try {
          // Each move is in the log of the workspace it concerns before this desktop makes it: leaving
          // one workspace for another is written in the one it leaves, coming in the one it joins.
          const elsewhere = choice.store === 'desktop' || !samePlace(choice.connection, connection);
          if (elsewhere && current.kind === 'runtime' && current.session && current.session.state === 'open') {
            await current.session.write((store) => moveAudited(store, 'leave_workspace', 'another workspace'));
          }
          if (elsewhere) await session.write((store) => moveAudited(store, 'join_workspace'));
          if (input.password !== undefined) await saveWorkspacePassword(vault, connection, input.password);
          saveStoreChoice(options.userDataDir, { store: 'workspace', connection });
        } catch (error) {
          await session.close();
          throw error;
        }
        choice = { store: 'workspace', connection };
        await closeCurrent();
        current = await openOnChoice(session);
        return { reopened: true as const, status: current.status };
      }),
    'workspace:useDesktop': () =>
      change(async () => {
        await refuseWhileSending();
        // Written in the workspace before anything changes: a line that cannot be written keeps the
        // console where it is. A workspace not open (its fault at start, or lost) cannot hear it:
        // leaving stays possible then (a team's desktop is never trapped), and the policy still
        // holds through the profiles (team-profile-book.ts refuses the team's, and their copies).
        if (current.kind === 'runtime' && current.session && current.session.state === 'open') {
          await current.session.write((store) => moveAudited(store, 'leave_workspace', 'desktop'));
        }
        if (choice.store === 'workspace') saveLastWorkspace(options.userDataDir, choice.connection);
        saveStoreChoice(options.userDataDir, { store: 'desktop' });
        choice = { store: 'desktop' };
        await closeCurrent();
        // A team profile stays with the team: this desktop re-opens on its built-in sandbox instead, in sight in the picker.
        const settings = createSettings(options.settingsBackend ?? confSettingsBackend(options.userDataDir));
        if (settings.teamProfilesSeen().some((seen) => seen.id === settings.activeProfileId())) settings.setActiveProfileId(LOCAL_SANDBOX_ID);
        current = await openOnChoice();
        return { reopened: true as const, status: current.status };
      }),
    'workspace:retry': () =>
      change(async () => {
        if (current.kind === 'runtime') {
          // A lost connection: the same login and schema checked again before writes are allowed.
          if (current.session?.state === 'lost') {
            await current.session.reconnect();
            // What was being sent when the connection went resumes from what the workspace holds.
            const resumed = await current.runtime.batchRunner.resumeLost();
            if (resumed.length > 0) log(`workspace found again: ${resumed.length} batch(es) sending again from what it holds`);
          }
          return { status: current.status };
        }
        current = await openOnChoice();
        return { status: current.status };
      }),
  };

  current = await openOnChoice();

  const handlers = {} as Record<Channel, (input: unknown) => Promise<Result<unknown>>>;
  for (const channel of CHANNELS) {
    if (WORKSPACE_CHANNELS.has(channel)) {
      const schema = CHANNEL_INPUTS[channel];
      const implementation = implementations[channel as WorkspaceChannel] as (input: unknown) => Promise<unknown>;
      handlers[channel] = async function handleWorkspaceChannel(input: unknown) {
        const parsed = schema.safeParse(input === undefined ? {} : input);
        if (!parsed.success) return { ok: false, error: { code: 'INVALID_INPUT', message: `Invalid input for ${channel}.`, fields: fieldErrorsOf(parsed.error.issues) } };
        try {
          return { ok: true, value: await implementation(parsed.data) };
        } catch (error) {
          return failureOf(error);
        }
      };
    } else {
      handlers[channel] = async function handleThroughConsole(input: unknown) {
        await changing;
        const table = current.kind === 'runtime' ? current.runtime.handlers : current.handlers;
        return (table[channel] as (input: unknown) => Promise<Result<unknown>>)(input);
      };
    }
  }

  return {
    handlers: handlers as HandlerTable,
    on: (event, listener) => pushes.on(event, listener),
    status: () => current.status,
    runtime: () => (current.kind === 'runtime' ? current.runtime : null),
    async close() {
      if (closed) return;
      closed = true;
      await changing;
      await closeCurrent();
    },
  };
}

/** The same workspace database, whatever the login (another login there is not a move of this desktop). */
function samePlace(a: WorkspaceConnection, b: WorkspaceConnection): boolean {
  return a.host === b.host && a.port === b.port && a.database === b.database;
}

function sameWorkspace(a: WorkspaceConnection, b: WorkspaceConnection): boolean {
  return workspacePasswordAccount(a) === workspacePasswordAccount(b);
}
