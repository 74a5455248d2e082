/**
 * The same login on two desktops, each with its own local sandbox (docs/decisions/local-sandbox-follow-ups.md):
 * fatou works from desktop A and desktop B, both on one team workspace. An entry's desktop (migration
 * 36, stamped by the database from the connection's `paydesk.desktop`, the data folder's id) decides
 * who follows a `local-sandbox` entry up, not the login: B's sweeper leaves A's local-sandbox entries
 * alone, B's Verify / Look up / Resend say SANDBOX_ELSEWHERE, and A (back on its folder) still follows
 * them up. An entry written before migration 36 (no desktop) is followed up by its login, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopConnectionOptions, desktopIdOf } from '../../electron/console/desktop-id';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
const dirs = { a: mkdtempSync(join(tmpdir(), 'paydesk-same-login-a-')), b: mkdtempSync(join(tmpdir(), 'paydesk-same-login-b-')) };
const runtimes: Awaited<ReturnType<typeof startRuntime>>[] = [];

/** fatou's console on the desktop whose data folder is `dir`. */
async function desktop(dir: string) {
  const runtime = await startRuntime({ userDataDir: dir, openStorage: async (_journal, { desktopId }) => workspaces.storeAs('fatou', database, desktopId) });
  runtimes.push(runtime);
  return runtime;
}
async function close(runtime: Awaited<ReturnType<typeof startRuntime>>) {
  runtimes.splice(runtimes.indexOf(runtime), 1);
  await runtime.close();
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 120_000);
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  await workspaces?.stop();
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
});

async function sql<T>(desktopId: string | null, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...workspaces.server.config('fatou', database), ...(desktopId ? { options: desktopConnectionOptions(desktopId) } : {}) });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function stateOf(id: string): Promise<string> {
  return sql(null, async (c) => (await c.query(`SELECT state || coalesce('/' || resolution, '') AS state FROM entries WHERE id = $1`, [id])).rows[0].state as string);
}

/** An outcome-unknown local-sandbox payment fatou wrote from `desktopId` (null: before migration 36, no desktop). */
async function unknownPayment(desktopId: string | null, id: string): Promise<void> {
  await sql(desktopId, (c) =>
    c.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES ($1, 'local-sandbox', 'Local sandbox', 'sandbox', 'payment', 'outcome_unknown', $2, 700, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', 1, 1)`,
      [id, `EXT-${id}`],
    ),
  );
}

describe('one login on two desktops, each with its own local sandbox', () => {
  it("desktop B leaves desktop A's local-sandbox entries alone; A still follows them up; older entries go by login", async () => {
    const aId = desktopIdOf(dirs.a);
    const bId = desktopIdOf(dirs.b);
    expect(aId).not.toBe(bId);
    // The id is the folder's: asked again, the same.
    expect(desktopIdOf(dirs.a)).toBe(aId);

    // fatou pays on desktop A's local sandbox (settling takes an hour: it stays processing).
    const a = await desktop(dirs.a);
    const paid = expectOk(await a.handlers['payments:create']({ request: paymentRequest({ external_id: 'SAME-LOGIN-A-1' }) }));
    expect(paid.profileId).toBe('local-sandbox');
    await close(a);
    expect(await sql(null, async (c) => (await c.query('SELECT desktop_id FROM entries WHERE id = $1', [paid.id])).rows[0].desktop_id)).toBe(aId);
    await unknownPayment(aId, 'a-unknown');
    await unknownPayment(bId, 'b-unknown');
    await unknownPayment(null, 'before-36');

    // The port hands B's sweeper B's own entry and the one with no desktop, not A's.
    const open = await workspaces.storeAs('fatou', database, bId).sweeper.openEntries(Number.MAX_SAFE_INTEGER, 100);
    expect(open.map((entry) => entry.id).sort()).toEqual(['b-unknown', 'before-36']);

    const b = await desktop(dirs.b);
    await b.followUpsIdle();
    // B's own and the older one are followed up on B's engine (never sent there): not found.
    expect(await stateOf('b-unknown')).toBe('outcome_unknown/not_found');
    expect(await stateOf('before-36')).toBe('outcome_unknown/not_found');
    // A's stay as they were.
    expect(await stateOf('a-unknown')).toBe('outcome_unknown');
    expect(await stateOf(paid.id)).toBe('known');

    const verify = expectFail(await b.handlers['transactions:verify']({ journalId: paid.id }), 'SANDBOX_ELSEWHERE');
    expect(verify.message).toContain('another desktop');
    expectFail(await b.handlers['transactions:resolveUnknown']({ journalId: 'a-unknown' }), 'SANDBOX_ELSEWHERE');
    expectFail(await b.handlers['transactions:resend']({ journalId: 'a-unknown' }), 'SANDBOX_ELSEWHERE');
    expect(await stateOf('a-unknown')).toBe('outcome_unknown');
    expect(await stateOf(paid.id)).toBe('known');
    await close(b);

    // Desktop A, started again on its folder, is the same desktop: it follows its entries up.
    const back = await desktop(dirs.a);
    await back.followUpsIdle();
    expect(await stateOf('a-unknown')).toBe('outcome_unknown/not_found');
    expect(expectOk(await back.handlers['transactions:verify']({ journalId: paid.id })).transaction.status).toBe('processing');
    await close(back);
  }, 120_000);
});
