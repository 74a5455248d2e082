/**
 * Notifications that people notice (issue 25 item 6), across two consoles on one team workspace
 * (a throwaway PostgreSQL) whose policy asks one approval from 100,000 XAF: when fatou's console
 * asks approval for a payout, kofi's console (an approver) hears it as one `journal:changed` push
 * naming the request, with no polling loop, and its "waiting for you" list, the nav's count, has
 * it; when kofi approves or rejects, fatou's console hears that push in turn and her "asked by
 * you" shows who decided. The renderer's side (reading again on the push, the badge, the desktop
 * notification) is test/renderer/approvals-live.test.tsx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalChanged } from '../../shared/api';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { setPolicy } from '../storage/approval-helpers';
import { expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let maker: ConsoleRuntime;
let approver: ConsoleRuntime;

async function desktop(person: Person): Promise<ConsoleRuntime> {
  return startRuntime({ engine: false, keyring: memoryKeyring(), openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)) });
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  maker = await desktop('fatou');
  approver = await desktop('kofi');
  await Promise.all([maker.storage.changes.ready(), approver.storage.changes.ready()]);
}, 120_000);
afterAll(async () => {
  await maker?.close();
  await approver?.close();
  await workspaces?.stop();
});

/**
 * The `journal:changed` pushes to `runtime`; `until` resolves with the first one from the `from`th
 * on (0: any, already heard or to come) for which `match` holds.
 */
function pushesTo(runtime: ConsoleRuntime) {
  const received: JournalChanged[] = [];
  let waiters: { match: (changed: JournalChanged) => boolean; resolve: (changed: JournalChanged) => void }[] = [];
  const off = runtime.on('journal:changed', (changed) => {
    received.push(changed);
    waiters = waiters.filter((waiter) => (waiter.match(changed) ? (waiter.resolve(changed), false) : true));
  });
  return {
    off,
    /** How many were heard so far (a mark for `until`). */
    heard: () => received.length,
    until(match: (changed: JournalChanged) => boolean, from = 0): Promise<JournalChanged> {
      const already = received.slice(from).find(match);
      return already ? Promise.resolve(already) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('approvals heard across desktops', () => {
  it("the approver's console hears the maker's request as a push; the maker hears the decision", async () => {
    const toApprover = pushesTo(approver);
    const toMaker = pushesTo(maker);
    expect(expectOk(await approver.handlers['approvals:list']({ scope: 'forMe' })).requests).toEqual([]);

    const asked = expectOk(await maker.handlers['approvals:askPayout']({ request: paymentRequest({ amount: 150_000 }) }));
    const id = String(asked.request!.id);
    const heard = await toApprover.until((changed) => changed.approvals.includes(id));
    expect(heard.everything).toBe(false);
    // What the renderer reads on that push: the request waits for kofi, once.
    expect(expectOk(await approver.handlers['approvals:list']({ scope: 'forMe' })).requests.map((r) => [r.id, r.state, r.requestedBy])).toEqual([[asked.request!.id, 'awaiting', 'fatou']]);

    // The maker's console heard its own ask too; what it hears after that is the decision.
    await toMaker.until((changed) => changed.approvals.includes(id));
    const beforeApproval = toMaker.heard();
    const decided = expectOk(await approver.handlers['approvals:approve']({ id: asked.request!.id, digest: asked.request!.digest }));
    expect(decided.state).toBe('approved');
    await toMaker.until((changed) => changed.approvals.includes(id), beforeApproval);
    const mine = expectOk(await maker.handlers['approvals:list']({ scope: 'mine' })).requests.find((r) => r.id === asked.request!.id);
    expect(mine).toMatchObject({ state: 'approved', decidedBy: 'kofi' });
    expect(expectOk(await approver.handlers['approvals:list']({ scope: 'forMe' })).requests).toEqual([]);

    // A rejection reaches the maker the same way.
    const second = expectOk(await maker.handlers['approvals:askPayout']({ request: paymentRequest({ amount: 200_000 }) }));
    const secondId = String(second.request!.id);
    await toApprover.until((changed) => changed.approvals.includes(secondId));
    await toMaker.until((changed) => changed.approvals.includes(secondId));
    const beforeRejection = toMaker.heard();
    expect(expectOk(await approver.handlers['approvals:reject']({ id: second.request!.id, remark: 'wrong supplier' })).state).toBe('rejected');
    await toMaker.until((changed) => changed.approvals.includes(secondId), beforeRejection);
    expect(expectOk(await maker.handlers['approvals:list']({ scope: 'mine' })).requests.find((r) => r.id === second.request!.id)).toMatchObject({ state: 'rejected', decidedBy: 'kofi', remark: 'wrong supplier' });
    toApprover.off();
    toMaker.off();
  });
});
