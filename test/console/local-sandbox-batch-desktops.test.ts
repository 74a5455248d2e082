/**
 * A Local sandbox batch on a team workspace is sent from its own desktop only (issue 38;
 * docs/decisions/local-sandbox-batch-stays-on-its-desktop.md): two console runtimes on one real
 * PostgreSQL workspace, fatou on desktop A and kofi on desktop B, each with its own Local sandbox
 * engine (its own data folder, its own desktop id). B's Confirm, Send from the approval card,
 * Resume and Help send of A's Local sandbox batches are refused with words that name the Team
 * sandbox, and no row reaches B's engine; A sends every row to its own engine, once.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopConnectionOptions, desktopIdOf } from '../../electron/console/desktop-id';
import { LOCAL_SANDBOX_PROFILE_ID, type BatchState } from '../../shared/api';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from '../storage/approval-helpers';
import { batchReaches } from './batch-helpers';
import { engineRows } from './never-twice-helpers';
import { expectFail, expectOk, startRuntime, tempDir } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;

let workspaces: TestWorkspaces;
let database: string;
let a: Runtime;
let b: Runtime;
const dirs = { a: tempDir('paydesk-ls-batch-a-'), b: tempDir('paydesk-ls-batch-b-') };

/** `person`'s console on the desktop whose data folder is `dir`, on its own Local sandbox (the active profile). */
function desktop(person: Person, dir: string): Promise<Runtime> {
  return startRuntime({ userDataDir: dir, engine: { settleMs: 0 }, openStorage: async (_journal, { desktopId }) => workspaces.storeAs(person, database, desktopId) });
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  // A batch of 100,000 XAF or more needs one approval (another person's).
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  a = await desktop('fatou', dirs.a);
  b = await desktop('kofi', dirs.b);
}, 120_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await workspaces?.stop();
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
});

/** A file of `count` rows of `amount` XAF, external ids `tag-1`…. */
function csv(tag: string, count: number, amount: number): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 1; index <= count; index += 1) lines.push(`+2376800000${String(index).padStart(2, '0')},${amount},Awa,${tag},awa${index}@example.com,${tag} ${index},${tag}-${index}`);
  return `${lines.join('\n')}\n`;
}

async function imported(runtime: Runtime, tag: string, count: number, amount: number): Promise<string> {
  return expectOk(await runtime.handlers['batches:import']({ fileName: `${tag}.csv`, text: csv(tag, count, amount), paymentMethod: 'momo_cm' })).batch.id;
}

/** A raw statement from desktop A's connection (fatou's): a state the test needs, as A's console would write it. */
async function onDesktopA(sql: string, params: unknown[]): Promise<void> {
  const client = new pg.Client({ ...workspaces.server.config('fatou', database), options: desktopConnectionOptions(desktopIdOf(dirs.a)) });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const stateOf = async (batchId: string): Promise<BatchState | undefined> => (await a.storage.batches.summary(batchId))?.state;

function refusedElsewhere(error: { message: string; reason?: { key: string; params: Record<string, string | number> } | undefined }): void {
  expect(error.reason).toEqual({ key: 'sandboxBatchElsewhere', params: { login: 'fatou' } });
  expect(error.message).toContain('Local sandbox of another desktop');
  expect(error.message).toContain('Team sandbox');
}

describe("desktop A's Local sandbox batch on the team workspace", () => {
  it("is never confirmed, sent from its approval card, resumed or helped from desktop B; A sends every row to its own engine, once", async () => {
    expect(desktopIdOf(dirs.a)).not.toBe(desktopIdOf(dirs.b));
    // A covered batch (3 × 50,000 XAF), asked by fatou on A and approved by kofi.
    const covered = await imported(a, 'LSB-C', 3, 50_000);
    expect((await b.storage.batches.summary(covered))!).toMatchObject({ profileId: LOCAL_SANDBOX_PROFILE_ID, sandboxElsewhereBy: 'fatou' });
    expect((await a.storage.batches.summary(covered))!.sandboxElsewhereBy).toBeUndefined();

    // B's Confirm on its own Local sandbox: refused, the draft unchanged.
    refusedElsewhere(expectFail(await b.handlers['batches:prepare']({ batchId: covered }), 'CONFLICT'));

    const asked = expectOk(await a.handlers['approvals:askBatch']({ batchId: covered })).request!;
    await workspaces.storeAs('kofi', database).approvals!.approve(asked.id, asked.digest, 'file checked');
    // B's Send from the approval card: refused; nothing sent, still a draft.
    refusedElsewhere(expectFail(await b.handlers['approvals:sendBatch']({ id: asked.id }), 'CONFLICT'));
    expect(await stateOf(covered)).toBe('draft');
    // A sends it from the card, to A's engine.
    const coveredEnded = batchReaches(a, covered, ['done', 'interrupted', 'paused', 'cancelled']);
    expectOk(await a.handlers['approvals:sendBatch']({ id: asked.id }));
    expect((await coveredEnded).state).toBe('done');

    // A small batch left paused on A (A moved it to sending, then paused it: no row claimed yet).
    const small = await imported(a, 'LSB-S', 5, 300);
    await onDesktopA(`UPDATE batches SET state = 'sending', started_at = 1 WHERE id = $1`, [small]);
    await onDesktopA(`UPDATE batches SET state = 'paused' WHERE id = $1`, [small]);
    // B's Resume: refused, still paused.
    refusedElsewhere(expectFail(await b.handlers['batches:resume']({ batchId: small }), 'CONFLICT'));
    expect(await stateOf(small)).toBe('paused');
    // Sending again with nobody sending it: B's Help send is refused too, in words naming the Team sandbox.
    await onDesktopA(`UPDATE batches SET state = 'sending' WHERE id = $1`, [small]);
    const join = expectFail(await b.handlers['batches:join']({ batchId: small }), 'CONFLICT');
    expect(join.reason).toEqual({ key: 'joinLocalSandbox', params: {} });
    expect(join.message).toContain('Team sandbox');
    expect(expectOk(await b.handlers['batches:get']({ batchId: small })).sendingHere).toBe(false);

    // A pauses and resumes it: A's runner sends every row to A's engine.
    await onDesktopA(`UPDATE batches SET state = 'paused' WHERE id = $1`, [small]);
    const smallEnded = batchReaches(a, small, ['done', 'interrupted', 'paused', 'cancelled']);
    expectOk(await a.handlers['batches:resume']({ batchId: small }));
    expect((await smallEnded).state).toBe('done');

    // B's engine never saw a payout; A's saw each external id once.
    expect(engineRows(b.engine!)).toEqual([]);
    const paid = engineRows(a.engine!).map((row) => row.external_id).sort();
    expect(paid).toEqual(['LSB-C-1', 'LSB-C-2', 'LSB-C-3', 'LSB-S-1', 'LSB-S-2', 'LSB-S-3', 'LSB-S-4', 'LSB-S-5']);
  }, 90_000);
});
