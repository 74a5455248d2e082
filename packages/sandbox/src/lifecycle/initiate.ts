/**
 * Initiating a payment or payout: one write transaction that checks `external_id`, charges a
 * payout (amount + fee) to the wallet, stores the transaction with its first timeline rows and
 * hands it to the provider. Either all of it happens or none of it.
 */
import type { TransactionRequest } from '../../../../shared/contract';
import type { Authenticated } from '../auth/auth';
import type { EngineContext } from '../context';
import { ApiError, validationError } from '../api/errors';
import type { TransactionKind } from '../events';
import { feeFor } from '../ledger/fees';
import { newTransactionId, newUuidV7 } from '../storage/ids';
import { resolveMethod } from '../api/methods';
import { submitToProvider } from './provider';
import { takeScenario } from '../scenarios/store';
import { externalIdTaken, insertTransaction, nextExternalIdSeq, type JoinedTransactionRow } from '../storage/store';
import { recordCreation } from './transitions';
import { addLedgerEntry, walletBalance } from '../ledger/wallet';

/** Creates the transaction; resolves once it is committed (group commit, see context.ts). */
export async function initiateTransaction(
  ctx: EngineContext,
  auth: Authenticated,
  kind: TransactionKind,
  request: TransactionRequest,
): Promise<JoinedTransactionRow> {
  const method = resolveMethod(ctx.db, {
    code: request.payment_method,
    kind,
    appId: auth.appId,
    environment: auth.environment,
    phoneNumber: request.phone_number,
  });
  const scope = { appId: auth.appId, environment: auth.environment, kind };
  let notifiesAt: number | null = null;
  // Every refusal is decided before the first write, so the write needs no savepoint of its own (see
  // `writeGroupedChecked`): the checks read, then the rows go in.
  const row = await ctx.writeGroupedChecked(() => {
    // The spec does not say the service refuses a used external_id: the default does, the
    // duplicates-accepted variant creates one more transaction with it (the next sequence number).
    let externalIdSeq = 0;
    if (request.external_id !== undefined) {
      if (ctx.variants.has('duplicates-accepted')) externalIdSeq = nextExternalIdSeq(ctx.db, scope, request.external_id);
      else if (externalIdTaken(ctx.db, scope, request.external_id)) {
        throw validationError(
          { external_id: [`has already been used for a ${kind} in this environment`] },
          `A ${kind} with this external_id already exists.`,
        );
      }
    }
    const fee = feeFor(ctx.db, kind, request.amount);
    if (kind === 'payout') {
      const balance = walletBalance(ctx.db, auth.appId, auth.environment);
      if (balance < request.amount + fee) {
        throw new ApiError(
          'INSUFFICIENT_FUNDS',
          `The wallet balance (${balance}) does not cover the amount plus fee (${request.amount + fee}).`,
        );
      }
    }
    return { fee, externalIdSeq };
  }, ({ fee, externalIdSeq }) => {
    const now = ctx.clock.nowMicros();
    const created: JoinedTransactionRow = {
      id: newTransactionId(now),
      ref: newUuidV7(now),
      app_id: auth.appId,
      environment: auth.environment,
      kind,
      external_id: request.external_id ?? null,
      // Handed to the provider in this same write, so the customer is deciding from the start: the row is
      // stored as `processing`, and its timeline still reads initiated -> processing (recordCreation).
      status: 'processing',
      amount: request.amount,
      fee,
      currency: auth.currency,
      description: request.description ?? null,
      phone_number: request.phone_number,
      customer_ref: newUuidV7(now),
      customer: JSON.stringify(request.customer),
      method_code: method.code,
      metadata: request.metadata === undefined ? null : JSON.stringify(request.metadata),
      reason: null,
      failed_code: null,
      failed_at: null,
      cancelled_at: null,
      completed_at: null,
      created_at: now,
      updated_at: now,
      provider_ref: newUuidV7(now),
      app_ref: auth.appRef,
      app_name: auth.appName,
      method_ref: method.ref,
      method_name: method.name,
    };
    if (kind === 'payout') {
      addLedgerEntry(ctx, {
        appId: auth.appId,
        environment: auth.environment,
        amount: -(request.amount + fee),
        reason: `payout ${created.id}: amount ${request.amount} plus fee ${fee}`,
        transactionId: created.id,
      });
    }
    // A sandbox scenario for this phone number or external id, if any, decides instead of the outcome table.
    const scenario =
      auth.environment === 'sandbox'
        ? takeScenario(ctx.db, { id: created.id, kind, phoneNumber: request.phone_number, externalId: created.external_id })
        : null;
    // The provider sends the customer the prompt.
    notifiesAt = submitToProvider(
      ctx.db,
      { ref: created.provider_ref, transactionId: created.id, kind, environment: auth.environment, phoneNumber: request.phone_number, amount: request.amount, now },
      { settleMs: ctx.settings.settleMs, expirySeconds: ctx.settings.expirySeconds },
      scenario,
    );
    // The joined fields are simply not read by the insert.
    insertTransaction(ctx.db, created, externalIdSeq);
    recordCreation(ctx, created);
    return created;
  });
  ctx.kickScheduler(notifiesAt ?? undefined);
  return row;
}
