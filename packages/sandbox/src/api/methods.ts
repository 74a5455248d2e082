/**
 * Resolving a request's method code (case-insensitive) to the canonical method, with the spec's
 * 406/422 refusals in a fixed order: exists and supports the kind in this environment, enabled
 * globally, enabled for the application, and (payouts) serves the destination.
 */
import type Database from 'better-sqlite3';
import type { Environment } from '../../../../shared/contract';
import { cachedConfig } from '../storage/config-cache';
import { ApiError } from './errors';
import type { TransactionKind } from '../events';
import { statementsFor } from '../storage/statements';

export interface MethodRow {
  code: string;
  ref: string;
  name: string;
  enabled: number;
  supports_payments: number;
  supports_payouts: number;
  environments: string;
  payout_prefixes: string;
}

/** A method row as cached: its JSON lists parsed once. */
interface CachedMethod {
  row: MethodRow;
  environments: readonly string[];
  payoutPrefixes: readonly string[];
}

const statements = statementsFor((db) => ({
  method: db.prepare('SELECT * FROM methods WHERE code_lower = ?'),
  appMethod: db.prepare('SELECT payments, payouts FROM app_methods WHERE app_id = ? AND code = ?'),
}));

export function resolveMethod(
  db: Database.Database,
  request: { code: string; kind: TransactionKind; appId: string; environment: Environment; phoneNumber: string },
): MethodRow {
  const payment = request.kind === 'payment';
  const code = request.code.toLowerCase();
  const cached = cachedConfig<CachedMethod>(db, `method:${code}`, () => {
    const row = statements(db).method.get(code) as MethodRow | undefined;
    return row === undefined ? undefined : { row, environments: JSON.parse(row.environments) as string[], payoutPrefixes: JSON.parse(row.payout_prefixes) as string[] };
  });
  const method = cached?.row;
  const supports = method && (payment ? method.supports_payments : method.supports_payouts) === 1;
  const inEnvironment = cached !== undefined && cached.environments.includes(request.environment);
  if (!method || !supports || !inEnvironment) {
    const where = method && supports ? ` in ${request.environment}` : '';
    throw new ApiError(
      payment ? 'PAYMENT_METHOD_NOT_SUPPORTED' : 'PAYOUT_METHOD_NOT_SUPPORTED',
      `The method ${request.code} does not support ${payment ? 'payments' : 'payouts'}${where}.`,
    );
  }
  if (method.enabled !== 1) {
    throw new ApiError(payment ? 'PAYMENT_METHOD_NOT_ENABLED' : 'PAYOUT_METHOD_NOT_ENABLED', `The method ${method.code} is disabled.`);
  }
  const forApp = cachedConfig(db, `app-method:${request.appId}\u0000${method.code}`, () =>
    statements(db).appMethod.get(request.appId, method.code) as { payments: number; payouts: number } | undefined,
  );
  if (!forApp || (payment ? forApp.payments : forApp.payouts) !== 1) {
    throw new ApiError(
      payment ? 'APP_PAYMENT_METHOD_NOT_ENABLED' : 'APP_PAYOUT_METHOD_NOT_ENABLED',
      `The method ${method.code} is not enabled for ${payment ? 'payments' : 'payouts'} in this application.`,
    );
  }
  if (!payment) {
    const prefixes = (cached as CachedMethod).payoutPrefixes;
    if (prefixes.length > 0 && !prefixes.some((prefix) => request.phoneNumber.startsWith(prefix))) {
      throw new ApiError('PAYOUT_NOT_AVAILABLE', `Payouts with ${method.code} can only go to numbers starting with ${prefixes.join(' or ')}.`);
    }
  }
  return method;
}
