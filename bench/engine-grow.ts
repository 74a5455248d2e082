/**
 * Grows a sandbox database to a million transactions for `bench:engine`'s growth phase, as if the
 * API had made them: each copy of one settled payment gets its own id, ref, external id and
 * provider request, its timeline rows and its ledger rows, in every table a create or a settlement
 * writes. Copies are older than anything the run creates next (ids that sort first, earlier
 * times), as a long-used sandbox's rows would be. Ledger copies carry amount 0 so every running
 * balance stays the sum of the entries before it.
 */
import type Database from 'better-sqlite3';

const BATCH = 50_000;

export async function growSandbox(db: Database.Database, templateId: string, target: number): Promise<{ rows: number; copies: number; seconds: number }> {
  const started = Date.now();
  const have = db.prepare('SELECT COUNT(*) FROM transactions').pluck().get() as number;
  const template = db.prepare('SELECT created_at, provider_ref FROM transactions WHERE id = ?').get(templateId) as { created_at: number; provider_ref: string } | undefined;
  if (!template) throw new Error(`no transaction ${templateId} to copy`);
  // Copy n: id TE_0… (sorts before time-ordered ids), one second apart going back in time.
  const numbers = `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)`;
  const id = `'TE_0' || printf('%023d', n.i)`;
  const providerRef = `'grow-' || printf('%012d', n.i)`;
  const copyTransactions = db.prepare(`${numbers}
    INSERT INTO transactions (id, ref, app_id, environment, kind, external_id, status, amount, fee, currency, description, phone_number,
      customer_ref, customer, method_code, metadata, reason, failed_code, failed_at, cancelled_at, completed_at, created_at, updated_at, provider_ref)
    SELECT ${id}, printf('00000000-0000-7000-8000-%012d', n.i), app_id, environment, kind, 'grow-' || n.i, status, amount + n.i % 1000, fee,
      currency, description, phone_number, customer_ref, customer, method_code, metadata, reason, failed_code, failed_at, cancelled_at,
      completed_at - n.i * 1000000, created_at - n.i * 1000000, updated_at - n.i * 1000000, ${providerRef}
    FROM n, transactions t WHERE t.id = ?`);
  const copyEvents = db.prepare(`${numbers}
    INSERT INTO transaction_events (transaction_id, from_status, status, failed_code, at)
    SELECT ${id}, e.from_status, e.status, e.failed_code, e.at - n.i * 1000000
    FROM n, transaction_events e WHERE e.transaction_id = ?`);
  const copyLedger = db.prepare(`${numbers}
    INSERT INTO ledger_entries (app_id, environment, amount, balance_after, reason, transaction_id, at)
    SELECT l.app_id, l.environment, 0,
      (SELECT balance_after FROM ledger_entries WHERE app_id = l.app_id AND environment = l.environment ORDER BY id DESC LIMIT 1),
      l.reason, ${id}, l.at - n.i * 1000000
    FROM n, ledger_entries l WHERE l.transaction_id = ?`);
  const copyProvider = db.prepare(`${numbers}
    INSERT INTO provider_requests (ref, transaction_id, kind, phone_number, amount, final_status, failed_code, decides_at, notifies, notified, created_at)
    SELECT ${providerRef}, ${id}, p.kind, p.phone_number, p.amount, p.final_status, p.failed_code, p.decides_at - n.i * 1000000, p.notifies, 1,
      p.created_at - n.i * 1000000
    FROM n, provider_requests p WHERE p.ref = ?`);
  let next = 1;
  for (let rows = have; rows < target; ) {
    const last = next + Math.min(BATCH, target - rows) - 1;
    db.transaction(() => {
      copyTransactions.run(next, last, templateId);
      copyEvents.run(next, last, templateId);
      copyLedger.run(next, last, templateId);
      copyProvider.run(next, last, template.provider_ref);
    })();
    rows += last - next + 1;
    next = last + 1;
    // Let the process answer its signals (and the parent's questions) between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { rows: db.prepare('SELECT COUNT(*) FROM transactions').pluck().get() as number, copies: next - 1, seconds: (Date.now() - started) / 1000 };
}

/** Ids of copies spread evenly over the grown table (a retrieve that lands anywhere in it). */
export function grownIds(count: number, grown: number): string[] {
  return Array.from({ length: count }, (_, i) => `TE_0${String(1 + Math.floor((i * grown) / count)).padStart(23, '0')}`);
}
