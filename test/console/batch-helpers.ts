/**
 * Helpers for the bulk payout tests: CSV text of N rows, and waiting for a batch state or a
 * condition on push events (never a fixed sleep).
 */
import { BATCH_ROWS_PAGE_MAX, type BatchDetail, type BatchProgress, type BatchRow, type BatchState, type PushEvent, type Result } from '../../shared/api';
import type { HandlerTable } from '../../electron/console/handlers';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { countRows } from '../../electron/console/batch/store';
import type { GateProxy } from './gate-proxy';
import { expectOk } from './helpers';

export const BATCH_HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';

/** Every sandbox outcome number, then an ordinary number (completes). */
export const OUTCOME_PHONES = ['+237650000001', '+237650000002', '+237650000003', '+237650000004', '+237650000005', '+237650000006', '+237650000007', '+237650000008', '+237650000009', '+237670000010'];

export function batchCsv(count: number, options: { phone?: (index: number) => string; amount?: (index: number) => number; tag?: string } = {}): string {
  const lines = [BATCH_HEADER];
  for (let index = 0; index < count; index += 1) {
    const phone = options.phone ? options.phone(index) : OUTCOME_PHONES[index % OUTCOME_PHONES.length]!;
    const amount = options.amount ? options.amount(index) : 100 + index;
    lines.push(`${phone},${amount},Person${index},Batch,p${index}@example.com,${options.tag ?? 'Commission'} ${index},`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Resolves with the first batch:progress of this batch in one of the states, once settled: a
 * Pause or Cancel is written at once (`stopping` set) and settles when the rows in flight are answered.
 */
export function batchReaches(runtime: ConsoleRuntime, batchId: string, states: readonly BatchState[]): Promise<BatchProgress> {
  return new Promise((resolve) => {
    const off = runtime.on('batch:progress', (progress) => {
      if (progress.batchId === batchId && progress.mode === 'send' && states.includes(progress.state) && !progress.stopping) {
        off();
        resolve(progress);
      }
    });
  });
}

/**
 * As batchReaches, for the run a Resume starts: the first event in one of `states` after the
 * batch was heard `sending` again. Until the Resume's run has set the batch sending, other events
 * still tell its old state truly (a follow-up after a restart settles rows of the batch and its
 * progress is pushed: `interrupted`); they are not this run's end. Events of a batch leave in the
 * order they were asked for (electron/console/batch/progress.ts).
 */
export function resumedBatchReaches(runtime: ConsoleRuntime, batchId: string, states: readonly BatchState[]): Promise<BatchProgress> {
  return new Promise((resolve) => {
    let sendingAgain = false;
    const off = runtime.on('batch:progress', (progress) => {
      if (progress.batchId !== batchId || progress.mode !== 'send') return;
      if (progress.state === 'sending') sendingAgain = true;
      else if (sendingAgain && states.includes(progress.state) && !progress.stopping) {
        off();
        resolve(progress);
      }
    });
  });
}

/** Resolves once `check` holds, checking now and after each of the given push events. */
export function until(runtime: ConsoleRuntime, events: readonly PushEvent[], check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const offs = events.map((event) =>
      runtime.on(event, () => {
        if (!check()) return;
        for (const off of offs) off();
        resolve();
      }),
    );
  });
}

/**
 * A batch's detail with every row, read page by page through `batches:rows` as the screen reads
 * them (`batches:get` answers the batch without its rows). Pass an id, or a detail an action answered.
 */
export async function withRows(handlers: HandlerTable, batch: string | BatchDetail): Promise<BatchDetail & { rows: BatchRow[] }> {
  const batchId = typeof batch === 'string' ? batch : batch.batch.id;
  const detail = typeof batch === 'string' ? ok(await handlers['batches:get']({ batchId })) : batch;
  const rows: BatchRow[] = [];
  for (;;) {
    const page = ok(await handlers['batches:rows']({ batchId, offset: rows.length, limit: BATCH_ROWS_PAGE_MAX }));
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.total) return { ...detail, rows };
  }
}

function ok<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Confirms and sends a draft; resolves with the state it stopped in once no row is processing or unknown. */
export async function sendConfirmed(runtime: ConsoleRuntime, batchId: string, options: { acceptDuplicateFile?: true; concurrency?: number } = {}): Promise<BatchProgress> {
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId, ...(options.acceptDuplicateFile ? { acceptDuplicateFile: true } : {}) }));
  const stopped = batchReaches(runtime, batchId, ['done', 'interrupted', 'cancelled']);
  expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: options.concurrency ?? 1 }));
  const progress = await stopped;
  // The run ends with one follow-up sweep (these consoles sweep once a burst: `watch.limitMs` 0). A payout
  // the engine settles in a later tick than that read (a loaded machine) would stay processing with no
  // event to come: the console is asked to follow up again until every row is final.
  const again = setInterval(() => runtime.followUpNow(), 250);
  try {
    await until(runtime, ['transaction:changed', 'batch:progress'], () => {
      const { counts } = countRows(runtime.journal, batchId);
      return counts.processing === 0 && counts.unknown === 0;
    });
  } finally {
    clearInterval(again);
  }
  return progress;
}

/** Sends a batch and cancels it when the request for `cancelAt` is on the wire (that row is still answered). */
export async function sendAndCancel(runtime: ConsoleRuntime, proxy: Pick<GateProxy, 'decide'>, batchId: string, cancelAt: string): Promise<BatchProgress> {
  proxy.decide = (request) => {
    if (request.externalId === cancelAt) void runtime.handlers['batches:cancel']({ batchId });
    return 'forward';
  };
  try {
    return await sendConfirmed(runtime, batchId);
  } finally {
    proxy.decide = () => 'forward';
  }
}
