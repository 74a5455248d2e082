/**
 * Steering a transaction's customer: what the simulated provider will answer for it. Changes the
 * provider's own record (not the transaction), so the normal path (notification, or verify for a
 * silent outcome) then brings the transaction there, with its webhooks and money effects.
 */
import { z } from 'zod';
import { FAILED_CODE_LIST, isFinalStatus, type FailedCode } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { getTransaction } from '../storage/store';
import { ControlError } from './guard';

export const outcomeSchema = z
  .strictObject({
    status: z.enum(['completed', 'failed', 'cancelled']),
    failed_code: z.enum(FAILED_CODE_LIST as [FailedCode, ...FailedCode[]]).optional(),
    /** False: the provider never tells the service (only verify learns it), like +237650000008. */
    notify: z.boolean().default(true),
    /** True: the customer decides now rather than at the settle time. */
    now: z.boolean().default(false),
  })
  .superRefine((body, issue) => {
    if (body.status === 'failed' && body.failed_code === undefined) {
      issue.addIssue({ code: 'custom', path: ['failed_code'], message: 'is required when status is failed' });
    }
    if (body.status !== 'failed' && body.failed_code !== undefined) {
      issue.addIssue({ code: 'custom', path: ['failed_code'], message: 'is only allowed when status is failed' });
    }
  });

export function setCustomerOutcome(ctx: EngineContext, transactionId: string, outcome: z.output<typeof outcomeSchema>): void {
  ctx.write(() => {
    const row = getTransaction(ctx.db, transactionId);
    if (!row) throw new ControlError('NOT_FOUND', `No transaction ${transactionId}.`);
    if (isFinalStatus(row.status)) {
      throw new ControlError('CONFLICT', `Transaction ${transactionId} is already ${row.status}: a final status never changes.`);
    }
    const now = ctx.clock.nowMicros();
    ctx.db
      .prepare(`
        UPDATE provider_requests SET final_status = ?, failed_code = ?, notifies = ?, notified = 0,
          decides_at = CASE WHEN ? THEN MIN(decides_at, ?) ELSE decides_at END
        WHERE ref = ?`)
      .run(outcome.status, outcome.failed_code ?? null, Number(outcome.notify), Number(outcome.now), now, row.provider_ref);
    ctx.queueEvent({ type: 'extension', topic: 'transaction.outcome', data: { transactionId, ...outcome } });
  });
  ctx.kickScheduler();
}
