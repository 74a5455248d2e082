import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { expectOk, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
const runtimes: Awaited<ReturnType<typeof startRuntime>>[] = [];
const consoleOf = async (person: Person) => {
  const runtime = await startRuntime({ openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config(person, database))) });
  runtimes.push(runtime);
  return runtime;
};
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 120_000);
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  await workspaces?.stop();
});
describe('probe', () => {
  it('opens', async () => {
    const adele = await consoleOf('adele');
    await adele.followUpsIdle();
    expect(expectOk(await adele.handlers['approvals:policy']({})).tiers).toEqual([]);
  });
});
