/**
 * Rehearsing a batch on the local sandbox engine, whatever the batch's profile: the same rows go
 * to the in-process engine (never to the profile's service) with distinct external ids
 * (`rh<run>-<batch id>-<row>`), each is brought to its final status at once, and the sandbox
 * wallet is funded with the batch's total before and set back to its earlier balance after, so a
 * rehearsal leaves the wallet as it found it (two ledger entries say so).
 */
import pLimit from 'p-limit';
import type { RehearsalRowResult, RehearsalSummary } from '../../../shared/api';
import type { FailedCode, TransactionStatus } from '../../../shared/contract';
import type { Context } from '../handlers/context';
import { classifyInitiate } from '../outcome';
import { LOCAL_SANDBOX_ID } from '../settings';
import { loadRows, saveRehearsal } from './store';

const CONCURRENCY = 4;
const PROGRESS_INTERVAL_MS = 100;

export async function rehearseBatch(context: Context, batchId: string): Promise<RehearsalSummary> {
  const { deps } = context;
  const engine = context.requireEngine();
  const finishNow = engine.finishNow.bind(engine);
  const sandbox = context.resolveProfile(LOCAL_SANDBOX_ID);
  const client = context.clientFor(sandbox);
  const rows = loadRows(deps.journal, batchId).filter((row) => row.request !== null);
  const run = deps.clock.now().toString(36);
  const results = new Map<number, RehearsalRowResult>();

  const feeOf = (amount: number, method: string) => engine.feeFor('payout', 'sandbox', amount, method);
  const float = rows.reduce((sum, row) => sum + row.request!.amount + feeOf(row.request!.amount, row.request!.payment_method), 0);
  const before = engine.walletBalance('sandbox').balance;
  if (float > 0) engine.topUp('sandbox', float, `rehearsal of batch ${batchId}: float`);

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

  let notBefore = 0;
  async function rehearseRow(index: number): Promise<void> {
    const row = rows[index]!;
    const request = { ...row.request!, external_id: `rh${run}-${batchId}-${row.rowNumber}` };
    for (;;) {
      const wait = notBefore - deps.clock.now();
      if (wait > 0) {
        await deps.clock.sleep(wait, deps.signal);
        continue;
      }
      const answer = classifyInitiate(await client.initiatePayout(request));
      let outcome: RehearsalRowResult;
      if (answer.kind === 'accepted') {
        const final = finishNow(answer.tx.transaction_id, request.phone_number);
        const status = (final?.status ?? answer.tx.status) as TransactionStatus;
        outcome = { state: 'accepted', status, failedCode: (final?.failedCode ?? null) as FailedCode | null, code: null, message: null, wouldFail: status !== 'completed' };
        counts.accepted += 1;
      } else if (answer.kind === 'retry-later' || (answer.kind === 'may-exist' && answer.retryAfterSeconds !== null)) {
        // The local engine asked to wait; its rehearsal ids are its own, so sending again is safe here.
        notBefore = Math.max(notBefore, deps.clock.now() + (answer.retryAfterSeconds ?? 1) * 1000);
        continue;
      } else if (answer.kind === 'refused' || answer.kind === 'exists') {
        outcome = { state: 'rejected', status: null, failedCode: null, code: answer.error.code, message: answer.error.message, wouldFail: true };
        counts.rejected += 1;
      } else {
        outcome = { state: 'unknown', status: null, failedCode: null, code: answer.kind === 'not-sent' ? 'NOT_SENT' : (answer.error?.code ?? 'BAD_RESPONSE'), message: answer.message, wouldFail: true };
        counts.unknown += 1;
      }
      if (outcome.wouldFail) counts.wouldFail += 1;
      results.set(row.rowNumber, outcome);
      progress(false);
      return;
    }
  }

  try {
    const limit = pLimit(CONCURRENCY);
    await Promise.all(rows.map((_, index) => limit(() => rehearseRow(index))));
  } finally {
    // Put the wallet back where it was, whatever happened above.
    const after = engine.walletBalance('sandbox').balance;
    if (after !== before) engine.topUp('sandbox', before - after, `rehearsal of batch ${batchId}: wallet restored`);
  }
  const summary: RehearsalSummary = {
    at: new Date(deps.clock.now()).toISOString(),
    rows: rows.length,
    accepted: counts.accepted,
    rejected: counts.rejected,
    wouldFail: counts.wouldFail,
    walletRestored: engine.walletBalance('sandbox').balance === before,
  };
  saveRehearsal(deps.journal, batchId, summary, results, deps.clock.now());
  progress(true);
  return summary;
}
