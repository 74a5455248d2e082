/**
 * Live across desktops (issue 24, item 5): two consoles on one team workspace (a throwaway
 * PostgreSQL); what console A commits reaches console B's renderer as one `journal:changed` push
 * naming it, with no polling loop: B's store LISTENs (storage/postgres/live-changes.ts) and its
 * runtime forwards (live-changes.ts). The latency from A's commit to B's push is printed, never
 * asserted (the machine is shared). B's listening connection lost: B says `everything`, then hears
 * A again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalChanged } from '../../shared/api';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { CHANGES_APPLICATION } from '../../electron/console/storage/postgres/live-changes';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { checkedRows, payoutRequest, PROFILE, serviceTx } from '../storage/fixtures';
import { startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let a: ConsoleRuntime;
let b: ConsoleRuntime;

async function desktop(person: Person): Promise<ConsoleRuntime> {
  return startRuntime({ engine: false, keyring: memoryKeyring(), openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)) });
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  a = await desktop('fatou');
  b = await desktop('samuel');
  await b.storage.changes.ready();
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await workspaces?.stop();
});

/** B's next `journal:changed` push for which `match` holds, with when it arrived. */
function pushTo(runtime: ConsoleRuntime, match: (changed: JournalChanged) => boolean): Promise<{ changed: JournalChanged; at: number }> {
  return new Promise((resolve) => {
    const off = runtime.on('journal:changed', (changed) => {
      if (!match(changed)) return;
      off();
      resolve({ changed, at: performance.now() });
    });
  });
}

describe('two consoles on one workspace', () => {
  it("shows console A's payout and batch progress on console B, as one push naming them", async () => {
    const started = performance.now();
    const id = await a.storage.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'LIVE-A1' }), currency: 'XAF', at: Date.now() });
    const committed = performance.now();
    const heard = await pushTo(b, (changed) => changed.entries.includes(id));
    expect(heard.changed).toMatchObject({ entries: [id], everything: false });
    const entryMs = heard.at - committed;

    // B's push names the batch: its progress screen reads the counts again.
    await a.storage.batches.create({ id: 'live-batch', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(3), at: Date.now() });
    await a.storage.batches.setState('live-batch', 'sending', Date.now(), { started: true });
    const [row] = await a.storage.batches.rowsInState('live-batch', ['not_sent']);
    const rowEntry = await a.storage.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row!.request!, currency: 'XAF', at: Date.now(), batch: { id: 'live-batch', row: row!.rowNumber } });
    const answered = pushTo(b, (changed) => changed.entries.includes(rowEntry) && changed.batches.includes('live-batch'));
    const answerStarted = performance.now();
    await a.storage.journal.writeInitiateOutcome(rowEntry, { kind: 'accepted', tx: serviceTx(row!.request!), httpStatus: 201, message: null }, Date.now());
    const answerCommitted = performance.now();
    const rowHeard = await answered;
    expect(rowHeard.changed.batches).toEqual(['live-batch']);
    expect((await b.storage.batches.counts('live-batch')).counts).toMatchObject({ accepted: 1 });
    console.log(
      `live across desktops: A's commit → B's push ${entryMs.toFixed(1)} ms (entry; ${(heard.at - started).toFixed(1)} ms from A's write call), ` +
        `${(rowHeard.at - answerCommitted).toFixed(1)} ms (a batch row's answer; ${(rowHeard.at - answerStarted).toFixed(1)} ms from the call)`,
    );
  });

  it('bundles a burst of writes into a few pushes, not one per write', async () => {
    const pushes: JournalChanged[] = [];
    const off = b.on('journal:changed', (changed) => pushes.push(changed));
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => a.storage.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: `LIVE-BURST-${i}` }), currency: 'XAF', at: Date.now() })));
    const last = ids.at(-1)!;
    await new Promise<void>((resolve) => {
      const check = b.on('journal:changed', () => {
        if (new Set(pushes.flatMap((changed) => changed.entries)).size >= ids.length) {
          check();
          resolve();
        }
      });
    });
    off();
    expect(new Set(pushes.flatMap((changed) => changed.entries))).toEqual(new Set(ids));
    expect(pushes.flatMap((changed) => changed.entries)).toContain(last);
    expect(pushes.length).toBeLessThan(ids.length);
    console.log(`live across desktops: ${ids.length} writes by A reached B in ${pushes.length} push(es)`);
  });

  it("says everything may have changed when B's listening connection comes back, then hears A again", async () => {
    const back = pushTo(b, (changed) => changed.everything);
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query<{ ended: boolean }>(`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = $2 AND usename = 'samuel'`, [CHANGES_APPLICATION, database]);
    expect(rows).toEqual([{ ended: true }]);
    expect((await back).changed).toMatchObject({ everything: true });
    const id = await a.storage.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'LIVE-A2' }), currency: 'XAF', at: Date.now() });
    expect((await pushTo(b, (changed) => changed.entries.includes(id))).changed.everything).toBe(false);
    await root.end();
  });
});
