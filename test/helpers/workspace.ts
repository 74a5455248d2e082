/**
 * A team workspace for tests on the throwaway PostgreSQL (./postgres.ts): the schema migrated once
 * into a template database, then each test gets its own copy (CREATE DATABASE … TEMPLATE, a file
 * copy: much faster than migrating again). People log in as their own logins, members of the
 * workspace's roles (migration 7); the test cluster trusts its unix socket, so no passwords.
 */
import type pg from 'pg';
import { ROLES } from '../../electron/console/storage/postgres/schema-names';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { desktopConnectionOptions } from '../../electron/console/desktop-id';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestPostgres, type TestPostgres } from './postgres';

/** Test logins and their roles: one per role, and one person with all three. */
export const PEOPLE = {
  fatou: [ROLES.finance],
  kofi: [ROLES.finance],
  samuel: [ROLES.support],
  adele: [ROLES.admin],
  tester: [ROLES.finance, ROLES.support, ROLES.admin],
} as const;
export type Person = keyof typeof PEOPLE;

export interface TestWorkspaces {
  server: TestPostgres;
  /** A fresh workspace database (a copy of the migrated template); returns its name. */
  create(): Promise<string>;
  /** The storage port on `database`, logged in as `person` (from the desktop `desktopId` when given); closed by stop(). */
  storeAs(person: Person, database: string, desktopId?: string): StoragePort;
  /** A raw SQL connection as `person` (for refusals and concurrency). */
  connectAs(person: Person, database: string): Promise<pg.Client>;
  stop(): Promise<void>;
}

const TEMPLATE = 'paydesk_workspace_template';

export async function startTestWorkspaces(): Promise<TestWorkspaces> {
  const server = await startTestPostgres();
  const admin = await server.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  const template = await server.connect(undefined, TEMPLATE);
  await migrateWorkspace(template);
  await template.end();
  for (const [person, roles] of Object.entries(PEOPLE)) {
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${person}') THEN CREATE ROLE ${person} LOGIN; END IF; END $$`);
    await admin.query(`GRANT ${roles.join(', ')} TO ${person}`);
  }
  const stores: StoragePort[] = [];
  let count = 0;
  return {
    server,
    async create() {
      count += 1;
      const name = `paydesk_ws_${process.pid}_${count}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
      return name;
    },
    storeAs(person, database, desktopId) {
      const store = workspaceStore(openWorkspacePool({ ...server.config(person, database), ...(desktopId ? { options: desktopConnectionOptions(desktopId) } : {}) }));
      stores.push(store);
      return store;
    },
    connectAs: (person, database) => server.connect(person, database),
    async stop() {
      await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
      await admin.end();
      await server.stop();
    },
  };
}
