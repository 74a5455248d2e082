/**
 * This desktop's own id (docs/decisions/local-sandbox-follow-ups.md): one per data folder, kept in
 * `desktop.json` beside the local sandbox's `sandbox.db`, so it lives as long as the engine whose
 * transactions it names. A console on a team workspace sends it when it connects (the connection
 * setting `paydesk.desktop`, ./storage/postgres/migrations/0036-team-profiles-notify-their-changes-the-desktop.sql) and the database
 * stamps it on every entry the console writes: a `local-sandbox` entry is then followed up by the
 * desktop whose engine holds it, even when the same login works on two desktops.
 *
 * Not the console holder id of consoles.json: that one is one per process and changes at every
 * start, while the engine's transactions outlive the process.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@paydesk/sandbox';
import { DESKTOP_SETTING } from './storage/postgres/schema-names';

export const DESKTOP_FILE = 'desktop.json';

/** An id this module makes (anything else found in the file is not trusted and is replaced). */
export const DESKTOP_ID = /^desktop-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function readId(path: string, logger: Logger | undefined): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger?.warn('this desktop\'s id could not be read: a new one is written', { error: (error as Error).name });
    return null;
  }
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    if (typeof id === 'string' && DESKTOP_ID.test(id)) return id;
  } catch {
    // Written anew below.
  }
  logger?.warn('this desktop\'s id is not valid: a new one is written (its earlier local-sandbox entries are then followed up by login)');
  return null;
}

/** The id of the desktop whose data folder is `userDataDir`, made and kept on first use. */
export function desktopIdOf(userDataDir: string, logger?: Logger): string {
  const path = join(userDataDir, DESKTOP_FILE);
  const found = readId(path, logger);
  if (found) return found;
  const id = `desktop-${randomUUID()}`;
  // Written aside then renamed: a console killed mid-write leaves no half of an id.
  const aside = `${path}.${process.pid}.tmp`;
  // A workspace console asks for the id before the runtime made the data folder (a new --user-data).
  mkdirSync(userDataDir, { recursive: true, mode: 0o700 });
  writeFileSync(aside, `${JSON.stringify({ id })}\n`, { mode: 0o600 });
  renameSync(aside, path);
  return id;
}

/** The connection's startup options naming this desktop (node-postgres `options`). */
export function desktopConnectionOptions(desktopId: string): string {
  // The id is checked: it goes into a startup option, where a space would start another one.
  if (!DESKTOP_ID.test(desktopId)) throw new Error('not a desktop id');
  return `-c ${DESKTOP_SETTING}=${desktopId}`;
}
