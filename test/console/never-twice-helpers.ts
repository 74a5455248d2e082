/**
 * What never-twice.test.ts and never-twice-kill.test.ts share: the file of rows, the engine's
 * payouts, and the invariants checked after each scenario.
 */
import { expect } from 'vitest';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import type { EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { OVERVIEW_DAYS } from '../../shared/api';
import { expectOk } from './helpers';

export interface EngineRow {
  external_id: string;
  status: string;
  amount: number;
}
export const engineRows = (engine: EngineHandle) => engineInternals(engine).db.prepare("SELECT external_id, status, amount FROM transactions WHERE kind = 'payout'").all() as EngineRow[];
/** `X-r2` → `X`: the logical payout an id stands for. */
export const rootOf = (externalId: string) => externalId.replace(/(-r\d+)+$/, '');
/** The sandbox fails a payout to this number (PAYER_NOT_FOUND). */
export const FAILING = '+237650000002';

/**
 * The invariants every scenario ends with: at most one engine transaction per external id and at
 * most one not failed per logical payout (an id and its `-rN` retries); History lists no refused
 * entry for a paid id (but `refusedThenPaid`) and each entry's status is the engine's; the
 * Overview counts the engine's payouts.
 */
export async function expectNeverTwice(desk: Pick<ConsoleRuntime, 'handlers'>, engine: EngineHandle, refusedThenPaid: readonly string[] = []) {
  const rows = engineRows(engine);
  const perId = new Map<string, number>();
  const livePerRoot = new Map<string, string[]>();
  for (const row of rows) {
    perId.set(row.external_id, (perId.get(row.external_id) ?? 0) + 1);
    if (row.status !== 'failed' && row.status !== 'cancelled') livePerRoot.set(rootOf(row.external_id), [...(livePerRoot.get(rootOf(row.external_id)) ?? []), row.external_id]);
  }
  expect([...perId].filter(([, n]) => n > 1)).toEqual([]);
  expect([...livePerRoot].filter(([, ids]) => ids.length > 1)).toEqual([]);

  const byId = new Map(rows.map((row) => [row.external_id, row]));
  const history = expectOk(await desk.handlers['transactions:search']({ query: { kind: 'payout' }, offset: 0, limit: 500 }));
  expect(history.total).toBeLessThanOrEqual(500);
  // `refusedThenPaid`: ids refused with an error code (nothing created), then paid by a later
  // attempt: decision attempts-belong-to-their-payout.md keeps such a refusal as its own entry.
  const paidRefused = history.rows.filter((entry) => entry.externalId !== null && byId.has(entry.externalId) && entry.state === 'rejected');
  expect(paidRefused.map((entry) => entry.externalId).filter((id) => !refusedThenPaid.includes(id!))).toEqual([]);
  for (const entry of paidRefused) expect(entry.lastError?.code).not.toBe('NOT_SENT');
  const disagree = history.rows
    .filter((entry) => entry.state === 'known' && entry.externalId !== null)
    .filter((entry) => entry.status !== byId.get(entry.externalId!)?.status)
    .map((entry) => [entry.externalId, entry.status, byId.get(entry.externalId!)?.status ?? 'absent']);
  expect(disagree).toEqual([]);

  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const dayBoundaries = Array.from({ length: OVERVIEW_DAYS + 1 }, (_, i) => new Date(start.getTime() + (i - OVERVIEW_DAYS + 1) * 86_400_000).toISOString());
  const today = expectOk(await desk.handlers['overview:get']({ dayBoundaries })).today;
  expect(today.total.count).toBe(rows.length);
  expect(today.total.amounts).toEqual([{ currency: 'XAF', amount: rows.reduce((sum, row) => sum + row.amount, 0) }]);
}

/** A file of `count` rows; `phone(index)` and `ids(index)` (external_id column) when given. */
export function file(count: number, tag: string, options: { ids?: (index: number) => string; phone?: (index: number) => string } = {}): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 0; index < count; index += 1) {
    const phone = options.phone?.(index) ?? `+23768${String(index + 1).padStart(7, '0')}`;
    lines.push(`${phone},${300 + index},Person${index},${tag},p${index}@example.com,${tag} ${index},${options.ids?.(index) ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

