/**
 * The workspace this desktop last used, kept when the person goes back to "This desktop only" so
 * that choosing the workspace again offers its fields (host, port, database, login, TLS) instead of
 * the defaults. Its own small file (`last-workspace.json`) beside the choice: the choice says where
 * the console records and must stay exact; this one is only a convenience, so a file that cannot
 * be read is ignored. Never the password (OS keychain only) nor the CA text.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspacePlace } from '../../../shared/api';
import { workspaceConnectionSchema, type WorkspaceConnection } from '../storage/postgres/connection';

export const LAST_WORKSPACE_FILE = 'last-workspace.json';

/** The place as the form shows it; the CA is only said to exist (the file is chosen again). */
export function placeOf(connection: WorkspaceConnection): WorkspacePlace {
  return { host: connection.host, port: connection.port, database: connection.database, user: connection.user, tls: connection.tls, hasCa: connection.ca !== undefined };
}

export function saveLastWorkspace(userDataDir: string, connection: WorkspaceConnection): void {
  const path = join(userDataDir, LAST_WORKSPACE_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(placeOf(connection), null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/** The last workspace's place, or undefined when none was used or the file is not one. */
export function readLastWorkspace(userDataDir: string): WorkspacePlace | undefined {
  const path = join(userDataDir, LAST_WORKSPACE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const place = JSON.parse(readFileSync(path, 'utf8')) as WorkspacePlace;
    const checked = workspaceConnectionSchema.safeParse({ host: place.host, port: place.port, database: place.database, user: place.user, tls: place.tls });
    return checked.success ? { ...placeOf(checked.data), hasCa: place.hasCa === true } : undefined;
  } catch {
    return undefined;
  }
}
