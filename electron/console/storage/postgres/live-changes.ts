/**
 * Change events on a team workspace (../changes-port.ts): one dedicated connection LISTENs on the
 * workspace's change channel, where triggers NOTIFY at commit (migrations 7, 21, 25, 31 and 36), so every
 * desktop hears every desktop's writes, its own included. Started by the first subscriber.
 *
 * A lost connection (server restart, network, pg_terminate_backend) is opened again, sooner at
 * first then every RETRY_MS's last step; once it is back, listeners hear one `everything`: what was
 * committed meanwhile was not heard, so the screens read again. A payload is a few ids (the
 * triggers send the table, the id and the batch), and the burst a transaction sends arrives in one
 * read of the socket: coalesced into one delivery, each id once.
 */
import pg from 'pg';
import { changeBundle, type ChangesPort, type StoreChange } from '../changes-port';
import { parseChange, type WorkspaceChange } from './events';
import { CHANGES_CHANNEL } from './schema-names';

/** How long to wait before each new attempt after a lost connection (the last one repeats). */
export const RETRY_MS = [100, 250, 500, 1000, 2000, 5000] as const;

/** The listening connection's name in pg_stat_activity (an administrator sees what it is; tests end it). */
export const CHANGES_APPLICATION = 'paydesk-changes';

const KINDS: Record<WorkspaceChange['table'], Exclude<StoreChange['kind'], 'everything'>> = {
  entries: 'entry',
  batches: 'batch',
  batch_rows: 'batch',
  reconciliations: 'reconciliation',
  team_settings: 'setting',
  approval_requests: 'approval',
  audit_log: 'audit',
  team_profiles: 'profile',
  send_asks: 'ask',
};

export function storeChangeOf(change: WorkspaceChange): StoreChange {
  return { kind: KINDS[change.table], id: change.id, batchId: change.batchId };
}

export interface WorkspaceChanges extends ChangesPort {
  /** Ends the connection and any retry; nothing is heard after. */
  close(): Promise<void>;
}

export function workspaceChanges(config: pg.ClientConfig, options: { retryMs?: readonly number[] } = {}): WorkspaceChanges {
  const retryMs = options.retryMs ?? RETRY_MS;
  let client: pg.Client | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let failures = 0;
  let everConnected = false;
  let closed = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const bundle = changeBundle({ ready: () => ready, onFirstSubscriber: () => void connect() });

  function again() {
    if (closed || retry) return;
    const wait = retryMs[Math.min(failures, retryMs.length - 1)]!;
    failures += 1;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, wait);
  }

  async function connect(): Promise<void> {
    const attempt = new pg.Client({ ...config, application_name: CHANGES_APPLICATION });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === attempt) client = null;
      void attempt.end().catch(() => undefined);
      again();
    };
    attempt.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const change = parseChange(message.payload);
      if (change) bundle.add([storeChangeOf(change)]);
    });
    attempt.on('error', onLost);
    attempt.on('end', onLost);
    try {
      await attempt.connect();
      await attempt.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (closed || lost) {
      if (closed) await attempt.end().catch(() => undefined);
      return;
    }
    client = attempt;
    failures = 0;
    // Back after a loss: whatever was committed while no one listened is read again.
    if (everConnected) bundle.add([{ kind: 'everything' }]);
    everConnected = true;
    markReady();
  }

  return {
    ...bundle.port,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const open = client;
      client = null;
      await open?.end().catch(() => undefined);
    },
  };
}
