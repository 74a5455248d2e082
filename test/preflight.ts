/**
 * Vitest globalSetup: before any test runs, checks what the tests need from the machine and, if
 * anything is missing, stops the run with one message naming each missing piece and the one
 * command that installs it, instead of dozens of tests failing with raw errors.
 */
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { postgresBinDir } from '../electron/console/storage/postgres/cluster';

export const CHROMIUM = '/usr/bin/chromium';
const SETUP = 'npm run setup';

function onPath(command: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface Machine {
  chromium: string;
  path: string;
  /** A D-Bus session already running (a desktop, or scripts/test.sh's own). */
  dbusSession: boolean;
  /** PostgreSQL's server binaries folder (null: not installed); absent: looked for on this machine. */
  postgresBin?: string | null;
}

const THIS_MACHINE: Machine = { chromium: CHROMIUM, path: process.env.PATH ?? '', dbusSession: Boolean(process.env.DBUS_SESSION_BUS_ADDRESS) };

/** Each missing piece, in words, with what it is needed for. Empty: the machine is ready. */
export function missingForTests(machine: Machine = THIS_MACHINE): string[] {
  const missing: string[] = [];
  if (!executable(machine.chromium)) missing.push(`Chromium at ${machine.chromium} (the E2E and browser-host tests drive it; Debian package "chromium")`);
  if (!machine.dbusSession && !onPath('dbus-run-session', machine.path)) {
    missing.push('dbus-run-session (the keychain tests run in their own D-Bus session; Debian package "dbus")');
  }
  if (!machine.dbusSession && !onPath('gnome-keyring-daemon', machine.path)) {
    missing.push('gnome-keyring-daemon (the Secret Service of the keychain tests; Debian package "gnome-keyring")');
  }
  const postgresBin = machine.postgresBin === undefined ? postgresBinDir() : machine.postgresBin;
  if (!postgresBin) {
    missing.push('PostgreSQL\'s initdb and pg_ctl (the team workspace tests start a throwaway cluster; Debian package "postgresql", binaries under /usr/lib/postgresql/<version>/bin)');
  }
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { close(): void };
    new Database(':memory:').close();
  } catch (error) {
    missing.push(`better-sqlite3's native module (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  return missing;
}

export function preflightMessage(missing: string[]): string {
  return [
    'The tests cannot run on this machine yet. Missing:',
    ...missing.map((item) => `  - ${item}`),
    `Install everything with: ${SETUP}   (Debian/Ubuntu: apt packages from scripts/apt-packages.txt, sudo when not root, then npm ci)`,
  ].join('\n');
}

export default function preflight(): void {
  const missing = missingForTests();
  if (missing.length > 0) throw new Error(preflightMessage(missing));
}
