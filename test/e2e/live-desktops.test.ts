/**
 * Live across desktops in a real Chromium (issue 24, item 5): console B's window shows what
 * console A commits to their shared workspace, with no polling loop and no reload: History gains
 * A's payout, and the payout's page follows its status. From A's commit to the row on B's screen
 * is printed, not asserted (a shared machine). A is a runtime without a window; B is the browser
 * host and Chromium over a runtime on the same workspace.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { LOCAL_SANDBOX_PROFILE_ID } from '../../shared/api';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { payoutRequest, serviceTx } from '../storage/fixtures';
import { startRuntime } from '../console/helpers';
import { screenshot, startHarness, type Harness } from './harness';

const PROFILE = { id: LOCAL_SANDBOX_PROFILE_ID, name: 'Local sandbox', environment: 'sandbox' as const };

let workspaces: TestWorkspaces;
let a: ConsoleRuntime;
let b: Harness;
let page: Page;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  const database = await workspaces.create();
  a = await startRuntime({ engine: false, keyring: memoryKeyring(), openStorage: () => openWorkspaceStore(workspaces.server.config('fatou', database)) });
  b = await startHarness({ openStorage: () => openWorkspaceStore(workspaces.server.config('tester', database)) });
  page = b.page;
  await b.runtime.storage.changes.ready();
  await page.goto(b.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  await go('#/history');
}, 180_000);

/** The address the harness opened carries the host's token: screens are reached by their hash. */
const go = (hash: string) => page.evaluate((to) => (location.hash = to), hash);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await workspaces?.stop();
});

/** Milliseconds from now until `locator` is visible on B's screen. */
async function shownAfter(started: number, text: string): Promise<number> {
  await page.getByText(text).first().waitFor({ timeout: 15_000 });
  return performance.now() - started;
}

describe("console B's window follows console A's writes", () => {
  it("shows A's payout in B's History, then its new status on B's open payout page", async () => {
    const request = payoutRequest({ external_id: 'LIVE-E2E-1' });
    const id = await a.storage.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: Date.now() });
    const committed = performance.now();
    const historyMs = await shownAfter(committed, 'LIVE-E2E-1');
    await screenshot(page, 'live-1-history-of-b');

    const tx = serviceTx(request);
    await a.storage.journal.writeInitiateOutcome(id, { kind: 'accepted', tx, httpStatus: 201, message: null }, Date.now());
    await go(`#/timeline/${id}`);
    await page.getByLabel('Status: Processing').first().waitFor();
    await a.storage.journal.recordObserved(id, { ...tx, status: 'completed' }, { type: 'status_seen', httpStatus: 200 }, Date.now());
    const answered = performance.now();
    await page.getByLabel('Status: Completed').first().waitFor({ timeout: 15_000 });
    const timelineMs = performance.now() - answered;
    await screenshot(page, 'live-2-timeline-of-b');
    expect(b.pageErrors).toEqual([]);
    console.log(`live in B's window: A's commit → row in B's History ${historyMs.toFixed(0)} ms, → status on B's payout page ${timelineMs.toFixed(0)} ms`);
  });
});
