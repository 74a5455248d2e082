/**
 * Live across desktops: one dedicated connection LISTENs on the workspace's change channel
 * (migration 7's triggers NOTIFY at commit), and each change reaches `onChange` as a small event;
 * the screens then fetch again, as they do for the main process's own pushes. No polling loop.
 */
import pg from 'pg';
import { CHANGES_CHANNEL } from './schema-names';

export interface WorkspaceChange {
  table: 'entries' | 'batches' | 'batch_rows' | 'reconciliations' | 'team_settings' | 'approval_requests' | 'audit_log' | 'team_profiles' | 'send_asks';
  /** The entry's, batch's, run's or approval request's id, or the setting's key (batch_rows: the batch's id, migration 25; audit_log: a statement's newest line, migration 31; team_profiles: the profile's id, migration 36; send_asks: the ask's id, migration 48). */
  id: string;
  /** The batch a changed entry belongs to (batch progress on other desktops). */
  batchId: string | null;
}

const TABLES = new Set<WorkspaceChange['table']>(['entries', 'batches', 'batch_rows', 'reconciliations', 'team_settings', 'approval_requests', 'audit_log', 'team_profiles', 'send_asks']);

/** A payload as the trigger writes it, or null when it is not one (nothing else should NOTIFY here). */
export function parseChange(payload: string | undefined): WorkspaceChange | null {
  try {
    const value = JSON.parse(payload ?? '') as Partial<WorkspaceChange>;
    if (!value.table || !TABLES.has(value.table) || typeof value.id !== 'string') return null;
    return { table: value.table, id: value.id, batchId: typeof value.batchId === 'string' ? value.batchId : null };
  } catch {
    return null;
  }
}

export interface ChangeListener {
  close(): Promise<void>;
}

/**
 * Listens for the workspace's changes. `onLost` is told when the connection ends (server restart,
 * network): the caller reconnects and reads again, since changes made meanwhile were not heard.
 */
export async function listenForChanges(config: pg.ClientConfig, onChange: (change: WorkspaceChange) => void, onLost: (error: Error | null) => void = () => undefined): Promise<ChangeListener> {
  const client = new pg.Client(config);
  let closing = false;
  client.on('notification', (message) => {
    if (message.channel !== CHANGES_CHANNEL) return;
    const change = parseChange(message.payload);
    if (change) onChange(change);
  });
  client.on('error', (error) => {
    if (!closing) onLost(error);
  });
  client.on('end', () => {
    if (!closing) onLost(null);
  });
  await client.connect();
  await client.query(`LISTEN ${CHANGES_CHANNEL}`);
  return {
    async close() {
      closing = true;
      await client.end();
    },
  };
}
