/**
 * The console's log: JSON lines in `<userDataDir>/logs/console.log`. Callers pass codes, ids and
 * error classes, never request bodies or secrets; anything shaped like a secret key is blanked
 * as a second line of defence.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './deps';

const SECRET_SHAPE = /\bsk_[A-Za-z0-9_-]+/g;

export function fileLogger(userDataDir: string, echo: boolean = false): Logger & { path: string } {
  const dir = join(userDataDir, 'logs');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'console.log');
  function write(level: 'info' | 'warn' | 'error', message: string, detail?: Record<string, unknown>): void {
    const line = JSON.stringify({ at: new Date().toISOString(), level, message, ...detail }).replace(SECRET_SHAPE, '[secret removed]');
    try {
      appendFileSync(path, `${line}\n`);
    } catch {
      // A full disk must not break a payout; the log is best effort.
    }
    if (echo) console[level === 'info' ? 'log' : level](line);
  }
  return {
    path,
    info: (message, detail) => write('info', message, detail),
    warn: (message, detail) => write('warn', message, detail),
    error: (message, detail) => write('error', message, detail),
  };
}
