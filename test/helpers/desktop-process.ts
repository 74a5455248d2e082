/**
 * A desktop of a team in its own process (./workspace-console.ts), driven from a test: commands on
 * its stdin, its events read from its stdout. A test can SIGKILL it and start it again on the same
 * folder (test/console/restart-within-lease.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
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
