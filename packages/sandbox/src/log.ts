/**
 * The one way main and the engine log: pino, JSON lines, written asynchronously, to a file capped
 * in size (one older file kept) or to stderr. Callers pass codes, ids and error classes, never
 * request bodies or secrets; every line is still redacted on the way out, as a second line of
 * defence: fields named like a secret (secret, token, password, authorization, signature, cookie,
 * api key) lose their value, and values shaped like one (sk_…, whsec_…, adm_…, `Bearer …`,
 * a webhook signature `v1,…`, a request signature: 64 hex digits or more) are blanked wherever
 * they appear (a signature quoted in a message could be replayed within the 5-minute window).
 */
import { mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';

/** pino's asynchronous file writer (sonic-boom), as pino.destination makes it. */
type Destination = ReturnType<typeof pino.destination>;

export interface Logger {
  info(message: string, detail?: Record<string, unknown>): void;
  warn(message: string, detail?: Record<string, unknown>): void;
  error(message: string, detail?: Record<string, unknown>): void;
}

export const REDACTED = '[redacted]';
/** Each log file stops growing here and is renamed to `<name>.1` (the previous `.1` is dropped). */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;

const SECRET_FIELD = /secret|token|passw(or)?d|authori[sz]ation|signature|cookie|api[-_]?key|private[-_]?key/i;
const SECRET_VALUES: readonly RegExp[] = [
  /\b(?:sk|whsec|adm)_[A-Za-z0-9_+/=-]{4,}/g,
  /\bBearer\s+[^\s"',;]+/gi,
  /\bv1,[A-Za-z0-9+/=]{16,}/g,
  /[0-9a-f]{64,}/gi,
];
const MAX_DEPTH = 6;

export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
  return out;
}

/** A copy of `value` safe to log: secret-named fields and secret-shaped strings blanked, errors as name and message. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) && item !== null && item !== undefined && typeof item !== 'boolean' ? REDACTED : redactSecrets(item, depth + 1);
  }
  return out;
}

/** One sonic-boom writer (asynchronous) on an open file, counting the bytes not yet on disk. */
class FileWriter {
  private readonly boom: Destination;
  private pending = 0;
  private readonly waiters: (() => void)[] = [];

  /** Opened here, synchronously, so the file exists at once. */
  constructor(path: string) {
    this.boom = pino.destination({ fd: openSync(path, 'a'), sync: false });
    // A full disk or a removed folder must not break a payout: the log is best effort.
    this.boom.on('error', () => this.settle(this.pending));
    this.boom.on('write', (bytes: number) => this.settle(bytes));
  }

  private settle(bytes: number): void {
    this.pending = Math.max(0, this.pending - bytes);
    if (this.pending === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  write(chunk: string): void {
    this.pending += Buffer.byteLength(chunk);
    this.boom.write(chunk);
  }

  /** Resolves once every byte written so far is in the file. */
  drained(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  async end(): Promise<void> {
    await this.drained();
    this.boom.end();
  }
}

/** Past `maxBytes` the file is renamed to `.1` (the previous `.1` dropped) and a new one begun. */
class CappedFile {
  private writer: FileWriter;
  private retiring: Promise<void> = Promise.resolve();
  private size: number;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.writer = new FileWriter(path);
    this.size = statSync(path).size;
  }

  write(chunk: string): void {
    const bytes = Buffer.byteLength(chunk);
    if (this.size > 0 && this.size + bytes > this.maxBytes) {
      try {
        renameSync(this.path, `${this.path}.1`);
        // Writes still in flight finish into the renamed file, which then closes.
        const old = this.writer;
        this.writer = new FileWriter(this.path);
        this.retiring = Promise.all([this.retiring, old.end()]).then(() => undefined);
      } catch {
        // Could not rotate: keep writing to the same file rather than lose lines.
      }
      this.size = 0;
    }
    this.size += bytes;
    this.writer.write(chunk);
  }

  async flush(): Promise<void> {
    await Promise.all([this.retiring, this.writer.drained()]);
  }

  async end(): Promise<void> {
    await this.retiring;
    await this.writer.end();
  }
}

export interface LogOptions {
  /** The log file; omitted: stderr. */
  file?: string;
  maxBytes?: number;
  /** Also write each line to stderr (development). */
  echo?: boolean;
}

export interface LogHandle extends Logger {
  /** The file written, or null for stderr. */
  path: string | null;
  /** Resolves once every line logged so far is written (before reading the file). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createLog(options: LogOptions = {}): LogHandle {
  const file = options.file ? new CappedFile(options.file, options.maxBytes ?? MAX_LOG_BYTES) : null;
  const stderr = file === null || options.echo ? pino.destination({ fd: 2, sync: false }) : null;
  const destination = {
    write(chunk: string): void {
      stderr?.write(chunk);
      file?.write(chunk);
    },
  };
  const logger = pino(
    {
      base: undefined,
      messageKey: 'message',
      timestamp: () => `,"at":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const write = (level: 'info' | 'warn' | 'error') => (message: string, detail?: Record<string, unknown>) =>
    logger[level](redactSecrets(detail ?? {}) as Record<string, unknown>, redactText(message));
  return {
    path: options.file ?? null,
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    flush: async () => {
      await file?.flush();
    },
    close: async () => {
      await file?.end();
    },
  };
}

/**
 * The log of code that holds no logger of its own: the engine, the Electron shell, the browser
 * host. Standalone (`npm run sandbox`) it writes to stderr; while a console runtime runs, the
 * runtime routes it into the console's log file.
 */
let routed: Logger | null = null;
let stderrLog: LogHandle | null = null;

export const processLog: Logger = {
  info: (message, detail) => target().info(message, detail),
  warn: (message, detail) => target().warn(message, detail),
  error: (message, detail) => target().error(message, detail),
};

function target(): Logger {
  if (routed) return routed;
  stderrLog ??= createLog();
  return stderrLog;
}

/** Sends the process log to `logger` until the returned function is called. */
export function routeProcessLog(logger: Logger): () => void {
  const previous = routed;
  routed = logger;
  return () => {
    if (routed === logger) routed = previous;
  };
}
