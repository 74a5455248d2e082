/**
 * Bringing a transaction up to what the provider says, with its money effects, in one write:
 * a completed payment credits `net_amount`; a failed or cancelled payout refunds amount + fee.
 */
import type { EngineContext } from '../context';
import { addLedgerEntry } from './wallet';
import { type ProviderView } from '../lifecycle/provider';
import type { TransactionRow } from '../storage/store';
import { changeStatus } from '../lifecycle/transitions';

/** Applies the provider's view to `row` (inside a write); returns whether anything changed. */
export function applyProviderView(ctx: EngineContext, row: TransactionRow, view: ProviderView): boolean {
  if (row.status === 'completed' || row.status === 'failed' || row.status === 'cancelled') return false;
  switch (view.state) {
    case 'pending':
      return false;
    case 'completed':
      changeStatus(ctx, row, 'completed');
      if (row.kind === 'payment') {
        addLedgerEntry(ctx, {
          appId: row.app_id,
          environment: row.environment,
          amount: row.amount - row.fee,
          reason: `payment ${row.id} completed (amount ${row.amount} less fee ${row.fee})`,
          transactionId: row.id,
        });
      }
      return true;
    case 'failed':
      changeStatus(ctx, row, 'failed', view.failedCode);
      refundPayout(ctx, row, `payout ${row.id} failed (${view.failedCode}): refund of amount and fee`);
      return true;
    case 'cancelled':
      changeStatus(ctx, row, 'cancelled');
      refundPayout(ctx, row, `payout ${row.id} cancelled: refund of amount and fee`);
      return true;
    default: {
      const unknown: never = view;
      throw new Error(`unknown provider view ${JSON.stringify(unknown)}`);
    }
  }
}

function refundPayout(ctx: EngineContext, row: TransactionRow, reason: string): void {
  if (row.kind !== 'payout') return;
  addLedgerEntry(ctx, { appId: row.app_id, environment: row.environment, amount: row.amount + row.fee, reason, transactionId: row.id });
}
