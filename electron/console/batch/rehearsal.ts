/**
 * Rehearsing a batch on a throwaway copy of the local sandbox (issue 23 item 4), whatever the
 * batch's profile: the same rows, with their own external ids (so scenarios by external id steer
 * them as they would the real send), go over HTTP to an engine of their own, in memory, with the
 * local sandbox's fees, scenarios and outcomes by phone, no rate limit and no webhook URL
 * (SandboxControl.rehearsalCopy). Each row is brought to its final status at once. The user's
 * sandbox sees nothing: no request against its rate limit or in its inspector, no webhook, no
 * ledger line, no transaction.
 *
 * The copy's wallet: for a batch on the local sandbox, that sandbox's balance, so a batch the
 * wallet cannot cover shows INSUFFICIENT_FUNDS on the rows the real send would meet it on; on
 * another profile (whose balance the preview reads from its own service), the batch's total, so
 * the rehearsal shows what the rows themselves would meet.
 */
import pLimit from 'p-limit';
import type { RehearsalRowResult, RehearsalSummary } from '../../../shared/api';
import type { ConsoleClient, SandboxCopy } from '../deps';
import { HandlerFailure, type Context } from '../handlers/context';
import { classifyInitiate } from '../outcome';
import { LOCAL_SANDBOX_ID } from '../settings';
import type { BatchPort } from '../storage/port';

const CONCURRENCY = 4;
const PROGRESS_INTERVAL_MS = 100;

/** A client of the copy, signing with the copy's own sandbox keys. */
function clientOfCopy(context: Context, copy: SandboxCopy): ConsoleClient {
  const keys = copy.keys().filter((key) => key.environment === 'sandbox');
  const publicKey = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)?.publicKey ?? '';
  return context.deps.clientFactory(
    { baseUrl: copy.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: publicKey('payment'), payoutPublicKey: publicKey('payout') },
    async (wanted) => {
      const key = keys.find((candidate) => candidate.publicKey === wanted);
      if (!key) throw new Error(`the rehearsal engine has no key ${wanted}`);
      return key.secretKey;
    },
  );
}

/** The batches being rehearsed, per store: sending one waits for its rehearsal (batches:start). */
const rehearsing = new WeakMap<BatchPort, Set<string>>();

export function isRehearsing(batches: BatchPort, batchId: string): boolean {
  return rehearsing.get(batches)?.has(batchId) ?? false;
}

export async function rehearseBatch(context: Context, batchId: string): Promise<RehearsalSummary> {
  const { deps } = context;
  // Marked before the first await: a Send right after the Rehearse click finds it running.
  const running = rehearsing.get(deps.storage.batches) ?? new Set<string>();
  rehearsing.set(deps.storage.batches, running);
  if (running.has(batchId)) throw new HandlerFailure('CONFLICT', 'This batch is being rehearsed already: wait for that rehearsal to finish.');
  running.add(batchId);
  try {
    return await rehearseOnCopy(context, batchId);
  } finally {
    running.delete(batchId);
  }
}

async function rehearseOnCopy(context: Context, batchId: string): Promise<RehearsalSummary> {
  const { deps } = context;
  const sandbox = context.requireEngine();
  const batches = deps.storage.batches;
  const rows = (await batches.rows(batchId)).filter((row) => row.request !== null);
  const onLocalSandbox = (await batches.summary(batchId))?.profileId === LOCAL_SANDBOX_ID;
  const total = rows.reduce((sum, row) => sum + row.request!.amount + sandbox.feeFor('payout', 'sandbox', row.request!.amount, row.request!.payment_method), 0);
  const copy = await sandbox.rehearsalCopy(onLocalSandbox ? {} : { walletBalance: total });
  const client = clientOfCopy(context, copy);
  const results = new Map<number, RehearsalRowResult>();

  let lastEmit = 0;
  const counts = { accepted: 0, rejected: 0, unknown: 0, wouldFail: 0 };
  const startedAt = Date.now();
  function progress(force: boolean): void {
    const at = Date.now();
    if (!force && at - lastEmit < PROGRESS_INTERVAL_MS) return;
    lastEmit = at;
    const done = results.size;
    const rate = done / Math.max((at - startedAt) / 1000, 0.001);
    deps.emit('batch:progress', {
      batchId,
      mode: 'rehearsal',
      state: 'draft',
      sent: done,
      accepted: counts.accepted,
      failed: counts.wouldFail,
      unknown: counts.unknown,
      remaining: rows.length - done,
      ratePerSecond: Math.round(rate * 10) / 10,
      etaSeconds: done > 0 ? Math.ceil((rows.length - done) / rate) : null,
      final: done,
    });
  }

  async function rehearseRow(index: number): Promise<void> {
    const row = rows[index]!;
    const answer = classifyInitiate(await client.initiatePayout(row.request!));
    let outcome: RehearsalRowResult;
    if (answer.kind === 'accepted') {
      const final = copy.finishNow(answer.tx.transaction_id, row.request!.phone_number);
      const status = final?.status ?? answer.tx.status;
      outcome = { state: 'accepted', status, failedCode: final?.failedCode ?? null, code: null, message: null, wouldFail: status !== 'completed' };
      counts.accepted += 1;
    } else if (answer.kind === 'refused' || answer.kind === 'exists') {
      outcome = { state: 'rejected', status: null, failedCode: null, code: answer.error.code, message: answer.error.message, wouldFail: true };
      counts.rejected += 1;
    } else {
      // The copy has no rate limit: a 429 here, like a transport failure, is the copy's own trouble.
      const code = answer.kind === 'not-sent' ? 'NOT_SENT' : answer.kind === 'retry-later' ? answer.error.code : (answer.error?.code ?? 'BAD_RESPONSE');
      outcome = { state: 'unknown', status: null, failedCode: null, code, message: answer.kind === 'retry-later' ? answer.error.message : answer.message, wouldFail: true };
      counts.unknown += 1;
    }
    if (outcome.wouldFail) counts.wouldFail += 1;
    results.set(row.rowNumber, outcome);
    progress(false);
  }

  try {
    const limit = pLimit(CONCURRENCY);
    await Promise.all(rows.map((_, index) => limit(() => rehearseRow(index))));
  } finally {
    await Promise.resolve(client.close()).catch(() => undefined);
    await copy.stop();
  }
  const summary: RehearsalSummary = {
    at: new Date(deps.clock.now()).toISOString(),
    rows: rows.length,
    accepted: counts.accepted,
    rejected: counts.rejected,
    wouldFail: counts.wouldFail,
  };
  await batches.saveRehearsal(batchId, summary, results, deps.clock.now());
  progress(true);
  return summary;
}
