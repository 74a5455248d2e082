/**
 * Consoles of several people on one throwaway team workspace, for the console tests that open a
 * colleague's console after another's (admin-only, local-sandbox follow-ups, approval policy,
 * audit): one PostgreSQL and one workspace database for the file, a console per call opened on
 * that person's login, and every console still open closed (its folder removed) at the end.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { startRuntime } from './helpers';

export type TestConsole = Awaited<ReturnType<typeof startRuntime>>;

export interface WorkspaceConsoles {
  /** Set once the file's beforeAll has run. */
  readonly workspaces: TestWorkspaces;
  readonly database: string;
  /** A console (runtime) opened on `person`'s login to the workspace. */
  consoleOf(person: Person): Promise<TestConsole>;
  /** Closes a console before the end (as its desktop stopping would) and removes its folder. */
  close(runtime: TestConsole): Promise<void>;
  /** An entry's state with its resolution when it has one (`outcome_unknown/not_found`), or a batch's state. */
  stateOf(id: string, table?: 'entries' | 'batches'): Promise<string>;
}

/** Registers the file's beforeAll (a workspace) and afterAll (consoles closed, PostgreSQL stopped). */
export function useWorkspaceConsoles(): WorkspaceConsoles {
  let workspaces: TestWorkspaces | undefined;
  let database: string | undefined;
  const runtimes: TestConsole[] = [];
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the workspace is opened in beforeAll: use it inside a test');
    return value;
  };

  beforeAll(async () => {
    workspaces = await startTestWorkspaces();
    database = await workspaces.create();
  }, 120_000);
  afterAll(async () => {
    for (const runtime of runtimes) {
      await runtime.close();
      rmSync(runtime.dir, { recursive: true, force: true });
    }
    await workspaces?.stop();
  });

  return {
    get workspaces() {
      return ready(workspaces);
    },
    get database() {
      return ready(database);
    },
    async consoleOf(person) {
      const runtime = await startRuntime({ openStorage: async () => ready(workspaces).storeAs(person, ready(database)) });
      runtimes.push(runtime);
      return runtime;
    },
    async close(runtime) {
      runtimes.splice(runtimes.indexOf(runtime), 1);
      await runtime.close();
      rmSync(runtime.dir, { recursive: true, force: true });
    },
    async stateOf(id, table = 'entries') {
      const sql = await ready(workspaces).connectAs('tester', ready(database));
      try {
        const state = table === 'entries' ? `state || coalesce('/' || resolution, '')` : 'state';
        return (await sql.query(`SELECT ${state} AS state FROM ${table} WHERE id = $1`, [id])).rows[0].state as string;
      } finally {
        await sql.end();
      }
    },
  };
}
