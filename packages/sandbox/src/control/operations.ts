/**
 * The engine operations the control API (`/_sandbox`) and the in-process control port share, so
 * both paths behave alike: settle now, settings, wallets, a transaction's state, reset to the seed.
 */
import { formatTimestamp } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import type { EventHub } from '../events';
import { MAX_RATE_LIMIT_PER_KEY_PER_MINUTE, type RateLimiter } from '../auth/rate-limit';
import { addLedgerEntry, ledgerEntries, walletBalance } from '../ledger/wallet';
import { decideNow } from '../lifecycle/provider';
import type { Scheduler } from '../lifecycle/scheduler';
import { resetToSeed } from '../storage/seeding';
import { getTransaction, toFullTransaction, transactionEvents } from '../storage/store';
import type { ControlTarget } from './target';

export function checkNonNegative(name: string, value: number, integer = true): number {
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
  return value;
}

export function checkRateLimit(perKeyPerMinute: number): number {
  checkNonNegative('rateLimit.perKeyPerMinute', perKeyPerMinute);
  if (perKeyPerMinute > MAX_RATE_LIMIT_PER_KEY_PER_MINUTE) {
    throw new RangeError(`rateLimit.perKeyPerMinute must be at most ${MAX_RATE_LIMIT_PER_KEY_PER_MINUTE}, got ${perKeyPerMinute}`);
  }
  return perKeyPerMinute;
}

export function controlOperations(parts: { ctx: EngineContext; scheduler: Scheduler; rateLimiter: RateLimiter; hub: EventHub }): ControlTarget {
  const { ctx, scheduler, rateLimiter, hub } = parts;
  const { db, clock, settings } = ctx;
  return {
    settleNow(transactionId) {
      const row = getTransaction(db, transactionId);
      if (!row) return null;
      decideNow(db, row.provider_ref, clock.nowMicros());
      scheduler.runDue();
      return { status: getTransaction(db, transactionId)?.status ?? row.status };
    },
    setSettleMs(ms) {
      settings.settleMs = checkNonNegative('settleMs', ms);
      hub.emit({ type: 'engine', detail: 'settle-ms' });
    },
    setRateLimit(perKeyPerMinute) {
      settings.rateLimitPerKeyPerMinute = checkRateLimit(perKeyPerMinute);
      hub.emit({ type: 'engine', detail: 'rate-limit' });
    },
    setMaintenance(on) {
      settings.maintenance = on;
      hub.emit({ type: 'engine', detail: on ? 'maintenance-on' : 'maintenance-off' });
    },
    walletBalance: (appId, environment) => walletBalance(db, appId, environment),
    topUp(appId, environment, amount, reason) {
      if (!Number.isSafeInteger(amount) || amount === 0) throw new RangeError('a top-up is a non-zero whole number of minor units');
      if (reason.trim() === '') throw new RangeError('a top-up needs a reason');
      return ctx.write(() => {
        if (!db.prepare('SELECT 1 FROM applications WHERE id = ?').get(appId)) throw new RangeError(`no application ${appId}`);
        if (walletBalance(db, appId, environment) + amount < 0) throw new RangeError('a withdrawal cannot take the wallet below zero');
        return addLedgerEntry(ctx, { appId, environment, amount, reason, transactionId: null });
      });
    },
    ledger: (appId, environment) => ledgerEntries(db, appId, environment),
    timeline: (transactionId) =>
      transactionEvents(db, transactionId).map((event) => ({
        status: event.status,
        from: event.from_status,
        failedCode: event.failed_code,
        at: formatTimestamp(event.at),
      })),
    transaction(transactionId) {
      const row = getTransaction(db, transactionId);
      return row ? toFullTransaction(row) : null;
    },
    kindOf: (transactionId) => getTransaction(db, transactionId)?.kind ?? null,
    reset() {
      resetToSeed(db, ctx.seed, clock.nowMicros());
      rateLimiter.reset();
      hub.emit({ type: 'engine', detail: 'reset' });
    },
  };
}
