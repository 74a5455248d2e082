/**
 * The Chromium page of one person's console on a throwaway team workspace with an approval
 * policy, for the approval and audit screens' tests: the workspace and its policy first, then what
 * the file needs there before the page opens (requests asked, audit lines), then the console's
 * page opened on `person`'s login. Closed, and PostgreSQL stopped, after the file.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { saveWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { openWorkspaceSession, type WorkspaceSession } from '../../electron/console/storage/postgres/workspace-session';
import { createVault } from '../../electron/console/vault';
import { sessionPort } from '../../electron/console/workspace/session-port';
import { memoryKeyring } from '../helpers/memory-keyring';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy, type Tier } from '../storage/approval-helpers';
import { startHarness, type Harness } from './harness';

/** Filled in by the file's beforeAll; read it inside tests and hooks. */
export interface WorkspacePage {
  workspaces: TestWorkspaces;
  database: string;
  h: Harness;
  page: Page;
  /** The console's workspace session, when the page opened it through `host` (what the banner's Try again reconnects). */
  session?: WorkspaceSession;
}

export interface WorkspacePageOptions {
  /** Whose console the page is. */
  person: Person;
  /** The approval policy the workspace starts with. */
  tiers: Tier[];
  /** The window's size (the harness's default when not given). */
  viewport?: { width: number; height: number };
  /** What the file needs in the workspace before the console opens. */
  before?: (workspaces: TestWorkspaces, database: string) => Promise<void>;
  /**
   * The socket folder the console reaches the workspace through (a cable the test may cut,
   * test/helpers/pg-cut.ts). Given, the console opens the workspace as the desktop does: a
   * workspace session (its faults, its "lost" state), the login's password in a keychain.
   */
  host?: () => string;
}

/** Registers the file's beforeAll (workspace, policy, `before`, page ready) and afterAll. */
export function useWorkspacePage(options: WorkspacePageOptions): WorkspacePage {
  const team = {} as WorkspacePage;
  beforeAll(async () => {
    team.workspaces = await startTestWorkspaces();
    team.database = await team.workspaces.create();
    await setPolicy(team.workspaces, team.database, options.tiers);
    await options.before?.(team.workspaces, team.database);
    team.h = await startHarness({
      viewport: options.viewport,
      openStorage: async () => {
        if (!options.host) return workspaceStore(openWorkspacePool(team.workspaces.server.config(options.person, team.database)));
        const connection = { host: options.host(), port: team.workspaces.server.cluster.port, database: team.database, user: options.person, tls: 'off' as const };
        const vault = createVault(memoryKeyring());
        // The test cluster trusts its local logins: any password opens it, as the keychain's would.
        await saveWorkspacePassword(vault, connection, 'test-password');
        team.session = await openWorkspaceSession({ connection, vault });
        return sessionPort(team.session);
      },
    });
    team.page = team.h.page;
    await team.page.goto(team.h.host.url);
    await team.page.locator('.env-marker').waitFor();
  }, 180_000);
  afterAll(async () => {
    await team.h?.close();
    await team.workspaces?.stop();
  });
  return team;
}
