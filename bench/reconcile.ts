/**
 * `npm run bench:reconcile`: a merchant file of 10k and 100k rows through the console's real
 * handler table (parse and check, save, match, report), on a real journal file and the real local
 * engine over HTTP. Rows/s of each step next to the baseline of the same run: the journal's own
 * lookup by external id, one row at a time. Also the longest event-loop stall while it ran.
 *
 * The engine here runs without its per-key rate limit (600 a minute would make the service step
 * measure the limit, not the code); the limit's handling is tested in test/console.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { ReconcileProgress } from '../shared/api';
import { RECONCILE_PART_CHARS } from '../shared/api/reconcile';
import { createClient } from '../electron/client';
import { systemClock } from '../electron/console/deps';
import { createHandlerCore, type HandlerTable } from '../electron/console/handlers';
import { sqliteStore } from '../electron/console/storage/sqlite-store';
import { openJournal, SCOPED_BY_EXTERNAL_ID, type JournalDb } from '../electron/console/journal/entries';
import { sandboxControlFrom } from '../electron/console/sandbox-engine';
import { createSettings, LOCAL_SANDBOX_ID, type SettingsBackend } from '../electron/console/settings';
import { createVault } from '../electron/console/vault';
import { memoryKeyring } from '../test/helpers/memory-keyring';
import { startEngine } from '../packages/sandbox/src/engine';
import { benchTempDir } from './temp';

const SIZES = [10_000, 100_000];
/** Rows of the service step (each one an HTTP look-up at the engine). */
const SERVICE_ROWS = 10_000;

function memorySettings(): SettingsBackend {
  let document: unknown = {};
  return { path: null, read: () => document, write: (next) => void (document = next) };
}

/** `rows` journal entries as the console would have them after creating or looking them up. */
function fillJournal(db: JournalDb, prefix: string, rows: number): void {
  const insert = db.prepare(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, amount,
       currency, phone_number, payment_method, customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
     VALUES (?, ?, 'Local sandbox', 'sandbox', 'payment', 'known', ?, ?, 'completed', ?, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', NULL, ?, ?)`,
  );
  const at = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    for (let i = 0; i < rows; i += 1) insert.run(randomUUID(), LOCAL_SANDBOX_ID, `TE_${prefix}${i}`, `${prefix}-${i}`, 1000 + (i % 5000), at, at);
  })();
}

function file(prefix: string, rows: number): string {
  const lines = ['external_id;kind;amount;expected_status'];
  for (let i = 0; i < rows; i += 1) lines.push(`${prefix}-${i};payment;${1000 + (i % 5000)};paid`);
  return `${lines.join('\r\n')}\r\n`;
}

async function run(handlers: HandlerTable, done: (id: string) => Promise<void>, text: string) {
  const began = await handlers['reconcile:begin']({ fileName: 'bench.csv' });
  if (!began.ok) throw new Error(began.error.message);
  const started = performance.now();
  for (let at = 0; at < text.length; at += RECONCILE_PART_CHARS) {
    const part = await handlers['reconcile:append']({ uploadId: began.value.uploadId, text: text.slice(at, at + RECONCILE_PART_CHARS) });
    if (!part.ok) throw new Error(part.error.message);
  }
  const imported = await handlers['reconcile:import']({ uploadId: began.value.uploadId, processingMinutes: 30 });
  if (!imported.ok || !imported.value.accepted) throw new Error(JSON.stringify(imported).slice(0, 300));
  const importMs = performance.now() - started;
  const id = imported.value.reconciliation.id;
  await done(id);
  const totalMs = performance.now() - started;
  const summary = await handlers['reconcile:get']({ id });
  if (!summary.ok) throw new Error(summary.error.message);
  const page = await handlers['reconcile:rows']({ id, offset: Math.floor(summary.value.totalRows / 2), limit: 200 });
  if (!page.ok) throw new Error(page.error.message);
  return { importMs, matchMs: totalMs - importMs, totalMs, summary: summary.value };
}

async function main(): Promise<void> {
  // Removed at the end, and also on an error, Ctrl-C or a kill (bench/temp.ts).
  const temp = benchTempDir('paydesk-bench-reconcile-');
  const dir = temp.path;
  const engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'sandbox.db'), settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
  const journal = openJournal(join(dir, 'journal.db'));
  const listeners = new Set<(event: ReconcileProgress) => void>();
  const abort = new AbortController();
  const core = createHandlerCore({
    vault: createVault(memoryKeyring()),
    settings: createSettings(memorySettings()),
    journal,
    storage: sqliteStore(journal, { settingsFile: join(dir, 'team-settings.json') }),
    clientFactory: (profile, secretFor) => createClient(profile, secretFor),
    engine: sandboxControlFrom(engine),
    clock: systemClock,
    emit: (event, payload) => {
      if (event === 'reconcile:progress') for (const listener of listeners) listener(payload as ReconcileProgress);
    },
    allowLive: false,
    transport: 'browser',
    version: 'bench',
    signal: abort.signal,
  });
  const done = (id: string) =>
    new Promise<void>((resolve) => {
      const listener = (event: ReconcileProgress) => {
        if (event.id === id && event.status !== 'running') {
          listeners.delete(listener);
          resolve();
        }
      };
      listeners.add(listener);
    });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const lines: string[] = [];
  try {
    for (const size of SIZES) {
      const prefix = `J${size}`;
      fillJournal(journal, prefix, size);
      // Baseline: the journal's own lookup by external id, one row at a time, the statement matching uses.
      const lookup = journal.prepare(SCOPED_BY_EXTERNAL_ID);
      const baseStart = performance.now();
      for (let i = 0; i < size; i += 1) lookup.get(`${prefix}-${i}`, 'payment', LOCAL_SANDBOX_ID, 'sandbox');
      const baseRate = size / ((performance.now() - baseStart) / 1000);
      loop.reset();
      loop.enable();
      const result = await run(core.handlers, done, file(prefix, size));
      loop.disable();
      const rate = size / (result.totalMs / 1000);
      lines.push(
        `| ${size.toLocaleString('en')} | journal (final) | ${Math.round(baseRate).toLocaleString('en')} | ${Math.round(size / (result.importMs / 1000)).toLocaleString('en')} | ${Math.round(size / (result.matchMs / 1000)).toLocaleString('en')} | ${Math.round(rate).toLocaleString('en')} | ${((rate / baseRate) * 100).toFixed(1)} % | ${(loop.max / 1e6).toFixed(0)} ms | matched ${result.summary.categories.matched.count.toLocaleString('en')} |`,
      );
      console.log(lines.at(-1));
    }
    // The service step: rows the journal does not know, each asked of the engine by external id.
    const prefix = 'S';
    loop.reset();
    loop.enable();
    const result = await run(core.handlers, done, file(prefix, SERVICE_ROWS));
    loop.disable();
    const lookup = journal.prepare(`SELECT * FROM entries WHERE external_id = ? LIMIT 1`);
    const baseStart = performance.now();
    for (let i = 0; i < SERVICE_ROWS; i += 1) lookup.get(`J10000-${i}`);
    const baseRate = SERVICE_ROWS / ((performance.now() - baseStart) / 1000);
    const rate = SERVICE_ROWS / (result.totalMs / 1000);
    lines.push(
      `| ${SERVICE_ROWS.toLocaleString('en')} | service (HTTP, 4 at once) | ${Math.round(baseRate).toLocaleString('en')} | ${Math.round(SERVICE_ROWS / (result.importMs / 1000)).toLocaleString('en')} | ${Math.round(SERVICE_ROWS / (result.matchMs / 1000)).toLocaleString('en')} | ${Math.round(rate).toLocaleString('en')} | ${((rate / baseRate) * 100).toFixed(2)} % | ${(loop.max / 1e6).toFixed(0)} ms | missing ${result.summary.categories.missing_at_service.count.toLocaleString('en')} |`,
    );
    console.log(lines.at(-1));
  } finally {
    abort.abort();
    try {
      await engine.stop();
      journal.close();
    } finally {
      temp.remove();
    }
  }
  console.log(`\nload average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
  console.log('| rows | matched from | journal lookups/s (baseline) | import rows/s | match rows/s | end-to-end rows/s | vs baseline | longest event-loop stall | check |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const line of lines) console.log(line);
}

await main();
