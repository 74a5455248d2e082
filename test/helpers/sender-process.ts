/**
 * A team sender in its own process (electron/sender/cli.ts, as `npm run sender` starts it), driven
 * from a test: its JSON events read from stdout. Started with node itself and tsx as a loader, so a
 * SIGKILL reaches the sender, not a tsx parent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SenderEventLine {
  event: string;
  holder?: string;
  batchId?: string;
  askId?: number;
  state?: string | null;
  entryId?: string | null;
  code?: string;
  message?: string;
  /** `follow-up-duty`: taken (true) or lost. */
  held?: boolean;
  /** `follow-up-round`: open entries followed in the round, and how many stay open. */
  followed?: number;
  open?: number;
}

export interface SenderProcess {
  name: string;
  child: ChildProcess;
  events: SenderEventLine[];
  stderr: string[];
  next(check: (event: SenderEventLine) => boolean): Promise<SenderEventLine>;
  exited: Promise<NodeJS.Signals | number | null>;
}

export function spawnSender(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): SenderProcess {
  const { PAYDESK_WORKSPACE_PASSWORD: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'electron/sender/cli.ts', ...args], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: SenderEventLine[] = [];
  const stderr: string[] = [];
  const waiting = new Set<{ check: (event: SenderEventLine) => boolean; resolve: (event: SenderEventLine) => void; reject: (error: Error) => void }>();
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let event: SenderEventLine;
    try {
      event = JSON.parse(line) as SenderEventLine;
    } catch {
      stderr.push(`(stdout) ${line}`);
      return;
    }
    events.push(event);
    for (const waiter of [...waiting]) {
      if (waiter.check(event)) {
        waiting.delete(waiter);
        waiter.resolve(event);
      }
    }
  });
  void exited.then((how) => {
    for (const waiter of waiting) waiter.reject(new Error(`${name} exited (${String(how)}) before the event the test waits for; stderr: ${stderr.slice(-10).join('\n')}`));
  });
  return {
    name,
    child,
    events,
    stderr,
    exited,
    next: (check) =>
      new Promise((resolve, reject) => {
        const seen = events.find(check);
        if (seen) return resolve(seen);
        waiting.add({ check, resolve, reject });
      }),
  };
}
