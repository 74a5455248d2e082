/**
 * What the approval tests share: a policy written by the admin, requests asked and decided in raw
 * SQL as each person (what a modified client could send), and the state a request ends in.
 */
import type pg from 'pg';
import type { TestWorkspaces } from '../helpers/workspace';
import type { NewTier } from '../../electron/console/storage/approvals-port';
import type { ApprovalTier } from '../../shared/api/approvals';
import { payoutRequest } from './fixtures';

export interface Tier {
  minAmount: number;
  approvals: 0 | 1 | 2;
  role?: 'paydesk_finance' | 'paydesk_admin';
  currency?: string;
  environment?: 'sandbox' | 'live';
}

/**
 * The admins set the tiers of a policy (sandbox XAF unless told), merged into the tiers already
 * there: adele asks (migration 46), tester, a second admin and another person, approves.
 */
export async function setPolicy(workspaces: TestWorkspaces, database: string, tiers: Tier[]): Promise<void> {
  const groups = new Map<string, Tier[]>();
  for (const tier of tiers) {
    const key = `${tier.environment ?? 'sandbox'}/${tier.currency ?? 'XAF'}`;
    groups.set(key, [...(groups.get(key) ?? []), tier]);
  }
  const adele = await workspaces.connectAs('adele', database);
  for (const [key, group] of groups) {
    const [environment, currency] = key.split('/') as [string, string];
    const { rows } = await adele.query<{ min_amount: string; approvals: number; approver_role: string }>(
      'SELECT min_amount, approvals, approver_role FROM approval_tiers WHERE environment = $1 AND currency = $2', [environment, currency]);
    const merged = new Map(rows.map((row) => [Number(row.min_amount), { min_amount: Number(row.min_amount), approvals: row.approvals, approver_role: row.approver_role }]));
    for (const tier of group) merged.set(tier.minAmount, { min_amount: tier.minAmount, approvals: tier.approvals, approver_role: tier.role ?? 'paydesk_finance' });
    await adminChange(workspaces, database, 'SELECT paydesk_ask_policy($1, $2, $3::jsonb) AS id', [environment, currency, JSON.stringify([...merged.values()])], adele);
  }
  await adele.end();
}

/** A change to the policy, roles or people asked by adele (`ask` returns its id) and approved by tester, a second admin. */
export async function adminChange(workspaces: TestWorkspaces, database: string, ask: string, params: unknown[], asker?: pg.Client): Promise<number> {
  const adele = asker ?? (await workspaces.connectAs('adele', database));
  const id = Number((await adele.query<{ id: string }>(ask, params)).rows[0]!.id);
  if (!asker) await adele.end();
  const tester = await workspaces.connectAs('tester', database);
  await tester.query('SELECT paydesk_approve_change($1)', [id]);
  await tester.end();
  return id;
}

/** The maker asks for a single payout's approval; returns the request's id (null: not covered). */
export async function askPayout(client: pg.Client, amount: number, externalId: string, profileId = 'p1'): Promise<number | null> {
  const request = payoutRequest({ amount, external_id: externalId });
  const { rows } = await client.query<{ id: string | null }>(`SELECT paydesk_request_payout_approval($2, 'sandbox', 'XAF', $1::jsonb) AS id`, [JSON.stringify(request), profileId]);
  return rows[0]!.id === null ? null : Number(rows[0]!.id);
}

export async function askBatch(client: pg.Client, batchId: string): Promise<number | null> {
  const { rows } = await client.query<{ id: string | null }>(`SELECT paydesk_request_batch_approval($1, 'XAF') AS id`, [batchId]);
  return rows[0]!.id === null ? null : Number(rows[0]!.id);
}

export async function digestOf(client: pg.Client, id: number): Promise<string> {
  return (await client.query<{ digest: string }>('SELECT digest FROM approval_requests WHERE id = $1', [id])).rows[0]!.digest;
}

/** Approves as the client's login what it reads now; returns the request's state afterwards. */
export async function approve(client: pg.Client, id: number, remark: string | null = null): Promise<string> {
  const digest = await digestOf(client, id);
  return (await client.query<{ state: string }>('SELECT paydesk_approve($1, $2, $3) AS state', [id, digest, remark])).rows[0]!.state;
}

export async function requestRow(client: pg.Client, id: number): Promise<{ state: string; approvals_required: number; approvals_given: number; approver_role: string }> {
  const { rows } = await client.query('SELECT state, approvals_required, approvals_given, approver_role FROM approval_requests WHERE id = $1', [id]);
  return rows[0];
}

/** A payout's entry written by raw SQL, as a client skipping the console's own code would. */
export function insertPayoutEntry(client: pg.Client, id: string, amount: number, externalId: string, state = 'pending'): Promise<pg.QueryResult> {
  const request = payoutRequest({ amount, external_id: externalId });
  return client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
     VALUES ($1, 'p1', 'Acme', 'sandbox', 'payout', $5, $2, $3, 'XAF', $4, 'service_demo', 'Awa', 'Nkemdirim', 'awa@example.com', $6, 1, 1)`,
    [id, externalId, amount, request.phone_number, state, JSON.stringify(request)],
  );
}

/**
 * Returns once every transaction still holding batch_rows' locks has ended. A refused claim's
 * error reaches the store before the server has rolled its statement back (PostgreSQL sends the
 * error first), and node-postgres' pool drops the connection whose query failed: the next claim,
 * on another connection, could find the refused claim's rows still locked and pass over them
 * (SKIP LOCKED), claiming nothing. EXCLUSIVE mode waits for every row lock's table lock; no timer.
 */
export async function afterRefusedClaims(client: pg.Client): Promise<void> {
  await client.query('BEGIN');
  await client.query('LOCK TABLE batch_rows IN EXCLUSIVE MODE');
  await client.query('COMMIT');
}

/**
 * A policy change through the console's port (electron/console/storage/postgres/people.ts): adele
 * asks it, tester (a second admin, another person) approves it; the policy as it then reads.
 */
export async function approvedPolicy(workspaces: TestWorkspaces, database: string, environment: 'sandbox' | 'live', currency: string, tiers: readonly NewTier[]): Promise<ApprovalTier[]> {
  const asked = await workspaces.storeAs('adele', database).people!.askPolicy(environment, currency, tiers);
  await workspaces.storeAs('tester', database).people!.approveChange(asked.id);
  return workspaces.storeAs('tester', database).approvals!.policy();
}
