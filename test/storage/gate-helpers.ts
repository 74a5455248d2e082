/**
 * What the gate attack tests share (issue 36): a batch of covered rows made through the store, and
 * raw SQL as a finance login claiming a row and writing a payout's entry tagged with a batch, as a
 * modified client could send it.
 */
import type pg from 'pg';
import type { StoragePort } from '../../electron/console/storage/port';
import { checkedRows, PROFILE } from './fixtures';

/** A batch of `count` rows of `amount` XAF each, `sending` (made by `store`'s login). */
export async function sendingBatch(store: StoragePort, id: string, count: number, amount: number): Promise<void> {
  await store.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(count, { amount }), at: 1 });
  await store.batches.setState(id, 'sending', 1);
}

/** Claims one row of a batch in raw SQL for the client's login (desk `holder`, a minute's lease). */
export function claimRow(client: pg.Client, batchId: string, rowNumber: number, holder = 'desk-raw'): Promise<pg.QueryResult> {
  return client.query(
    `UPDATE batch_rows SET claim_holder = $3, lease_until = paydesk_now_ms() + 60000
     WHERE batch_seq = (SELECT seq FROM batches WHERE id = $1) AND row_number = $2`,
    [batchId, rowNumber, holder],
  );
}

export interface TaggedEntry {
  id: string;
  batchId: string;
  batchRow: number;
  amount: number;
  externalId: string;
  phone?: string;
}

/**
 * A pending payout entry tagged with a batch id and row, its request and columns agreeing with
 * each other (the gate's own check) whatever the batch holds.
 */
export function insertTaggedEntry(client: pg.Client, entry: TaggedEntry): Promise<pg.QueryResult> {
  const phone = entry.phone ?? '+237650000001';
  const request = {
    payment_method: 'service_demo', amount: entry.amount, phone_number: phone, external_id: entry.externalId,
    customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' }, description: 'Supplier',
  };
  return client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, batch_id, batch_row, created_at, updated_at)
     VALUES ($1, 'p1', 'Acme', 'sandbox', 'payout', 'pending', $2, $3, 'XAF', $4, 'service_demo', 'Awa', 'Nkemdirim', 'awa@example.com', $5, $6, $7, 1, 1)`,
    [entry.id, entry.externalId, entry.amount, phone, JSON.stringify(request), entry.batchId, entry.batchRow],
  );
}

/** The entry of a batch's row exactly as its row says (request, external id, amount, phone), as the console writes it. */
export function insertRowEntry(client: pg.Client, id: string, batchId: string, rowNumber: number, environment = 'sandbox'): Promise<pg.QueryResult> {
  return client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, batch_id, batch_row, created_at, updated_at)
     SELECT $1, b.profile_id, b.profile_name, $4, 'payout', 'pending', br.external_id, (r->>'amount')::bigint, 'XAF', r->>'phone_number', r->>'payment_method',
       r->'customer'->>'first_name', r->'customer'->>'last_name', r->'customer'->>'email', br.request, b.id, br.row_number, 1, 1
     FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq CROSS JOIN LATERAL (SELECT br.request::jsonb AS r) q
     WHERE b.id = $2 AND br.row_number = $3`,
    [id, batchId, rowNumber, environment],
  );
}
