/**
 * A desktop of a team in its own process (./workspace-console.ts), driven from a test: commands on
 * its stdin, its events read from its stdout. A test can SIGKILL it and start it again on the same
 * folder (test/console/restart-within-lease.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CheckedRow } from '../../shared/api';
import type { DesktopOptions } from './workspace-console';

export interface DesktopEvent {
  event: string;
  batchId?: string;
  state?: string | null;
  notices?: string[];
  message?: string;
}

export interface DesktopProcess {
  name: string;
  userDataDir: string;
  child: ChildProcess;
  events: DesktopEvent[];
  /** The first event (seen or to come) that passes `check`; rejects on the desktop's error or exit. */
  next(check: (event: DesktopEvent) => boolean): Promise<DesktopEvent>;
  send(command: string): void;
  exited: Promise<NodeJS.Signals | number | null>;
}

export function spawnDesktop(name: string, options: DesktopOptions): DesktopProcess {
  // node itself with tsx as a loader: the tsx CLI would run the script in a grandchild that SIGKILL misses.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/workspace-console.ts'], {
    env: { ...process.env, PAYDESK_DESKTOP: JSON.stringify(options) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const events: DesktopEvent[] = [];
  const waiting = new Set<{ check: (event: DesktopEvent) => boolean; resolve: (event: DesktopEvent) => void; reject: (error: Error) => void }>();
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as DesktopEvent;
    events.push(event);
    for (const waiter of [...waiting]) {
      if (event.event === 'error') waiter.reject(new Error(`${name}: ${event.message}`));
      else if (waiter.check(event)) {
        waiting.delete(waiter);
        waiter.resolve(event);
      }
    }
  });
  void exited.then((how) => {
    for (const waiter of waiting) waiter.reject(new Error(`${name} exited (${String(how)}) before the event the test waits for`));
  });
  return {
    name,
    userDataDir: options.userDataDir,
    child,
    events,
    exited,
    next: (check) =>
      new Promise((resolve, reject) => {
        const seen = events.find(check);
        if (seen) return resolve(seen);
        waiting.add({ check, resolve, reject });
      }),
    send: (command) => child.stdin!.write(`${command}\n`),
  };
}

/** The test's seed: PAYDESK_SEED when given (a replay), else a random one; printed by the caller. */
export function seedFromEnv(): number {
  const seed = process.env.PAYDESK_SEED ? Number(process.env.PAYDESK_SEED) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`PAYDESK_SEED must be a whole number of 0 or more, not "${process.env.PAYDESK_SEED}"`);
  return seed;
}

/** mulberry32: a small seeded generator, so a seed replays the same choices. */
export function seeded(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A confirmed batch's rows for a team test: external ids `<prefix>-1`…, amounts from `firstAmount` up by one. */
export function teamBatchRows(prefix: string, count: number, firstAmount: number): CheckedRow[] {
  return Array.from({ length: count }, (_, index) => {
    const externalId = `${prefix}-${index + 1}`;
    const request = {
      payment_method: 'momo_cm',
      amount: firstAmount + index,
      phone_number: `+23767${String(index).padStart(7, '0')}`,
      customer: { first_name: `Agent${index}`, last_name: 'Team', email: `a${index}@example.com` },
      description: `Commission ${index}`,
      external_id: externalId,
    };
    return {
      rowNumber: index + 2,
      values: { phone_number: request.phone_number, amount: String(request.amount), first_name: request.customer.first_name, last_name: 'Team', email: request.customer.email, description: request.description, external_id: externalId, payment_method: '', meta: {} },
      request,
      errors: {},
      duplicates: [],
      externalId,
    };
  });
}

/** The desktops' events and the last lines of their logs, for a failure's message. */
export function desktopsSituation(desktops: readonly DesktopProcess[]): string {
  return desktops
    .map((desktop) => {
      let log: string;
      try {
        log = readFileSync(join(desktop.userDataDir, 'logs', 'console.log'), 'utf8').split('\n').slice(-15).join('\n');
      } catch {
        log = '(no log)';
      }
      return `${desktop.name}: ${JSON.stringify(desktop.events)}\n${log}`;
    })
    .join('\n');
}
