/**
 * Which console of this desktop holds its batch runs and row claims in a team workspace, and which
 * earlier consoles of this desktop stopped without leaving (docs/decisions/restart-ends-own-stopped-runs.md).
 *
 * Each console (one process, one runtime) holds its runs and claims under a fresh holder id
 * (`console-<uuid>`; runs are `<holder>/run-…`, claims `<holder>/<n>`). The desktop's folder keeps
 * a small record, `consoles.json`: the process now using the folder and its holder, and the
 * holders of earlier consoles that stopped without leaving. A console that starts and finds the
 * recorded process gone knows that console stopped (killed, crashed, the machine off): its runs
 * cannot be alive, whatever their `alive_until` says, so they are ended at once
 * (BatchRunsPort.endStoppedConsoles) instead of after a lease. A recorded process that is still
 * running (a second console on the same folder) is never taken for stopped.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@paydesk/sandbox';

export const CONSOLES_FILE = 'consoles.json';

/** A holder id this module makes (anything else in the record is not trusted to match ids in the workspace). */
const HOLDER = /^console-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the folder's record says: the process using it now (null once it closed) and the consoles that stopped. */
interface ConsolesRecord {
  pid: number | null;
  current: string | null;
  stopped: string[];
}

export interface ConsoleHolder {
  /** This console's holder id. */
  holder: string;
  /** Earlier consoles of this desktop that stopped without leaving (their runs and claims to end). */
  stopped: readonly string[];
  /** Those consoles' runs and claims were ended in the workspace: no need to end them again. */
  ended(holders: readonly string[]): void;
  /** This console closes having left its runs: the record no longer names it. */
  close(): void;
}

/** Whether a process with this id is running (EPERM: it exists, another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(path: string, logger: Logger | undefined): ConsolesRecord {
  const empty: ConsolesRecord = { pid: null, current: null, stopped: [] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger?.warn('the record of this desktop\'s consoles could not be read: a stopped console\'s batches wait for their lease', { error: (error as Error).name });
    return empty;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConsolesRecord>;
    const pid = Number.isSafeInteger(parsed.pid) && (parsed.pid as number) > 0 ? (parsed.pid as number) : null;
    const current = typeof parsed.current === 'string' && HOLDER.test(parsed.current) ? parsed.current : null;
    const stopped = Array.isArray(parsed.stopped) ? parsed.stopped.filter((holder): holder is string => typeof holder === 'string' && HOLDER.test(holder)) : [];
    return { pid, current, stopped };
  } catch {
    logger?.warn('the record of this desktop\'s consoles is not valid JSON: it is written anew, and a stopped console\'s batches wait for their lease');
    return empty;
  }
}

function writeRecord(path: string, record: ConsolesRecord): void {
  // Written aside then renamed: a console killed mid-write leaves the old record, never half of one.
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(aside, path);
}

/** Takes this desktop's folder for a new console; `alive` is how a recorded process is checked (tests). */
export function takeConsoleHolder(userDataDir: string, logger?: Logger, alive: (pid: number) => boolean = processAlive): ConsoleHolder {
  const path = join(userDataDir, CONSOLES_FILE);
  const holder = `console-${randomUUID()}`;
  const record = readRecord(path, logger);
  if (record.pid !== null && alive(record.pid)) {
    // Another console uses this folder now (or an earlier runtime of this very process): its runs
    // may be alive. Nothing is ended and its record stays; this console's own stop is found by its lease.
    logger?.warn('another console is using this desktop\'s folder: its batch runs are left to their lease', { pid: record.pid });
    return { holder, stopped: [], ended: () => undefined, close: () => undefined };
  }
  let stopped = [...new Set([...record.stopped, ...(record.current ? [record.current] : [])])];
  // Written before any run starts: if this console stops too, the next one knows both.
  const save = (current: string | null) => {
    try {
      writeRecord(path, { pid: current ? process.pid : null, current, stopped });
    } catch (error) {
      // Unwritable folder: a stop of this console is found by its lease instead, as before the record.
      logger?.warn('the record of this desktop\'s consoles could not be written: a stopped console\'s batches wait for their lease', { error: (error as Error).name });
    }
  };
  save(holder);
  return {
    holder,
    stopped,
    ended(holders) {
      stopped = stopped.filter((earlier) => !holders.includes(earlier));
      save(holder);
    },
    close() {
      save(null);
    },
  };
}
