/**
 * `npm run schema:snapshot`: writes docs/workspace-schema.sql, the team workspace's schema as its
 * migrations build it (scripts/workspace-schema.ts), read from a throwaway PostgreSQL cluster
 * (test/helpers/postgres.ts: a temp folder, a free port, removed at the end). Run it after adding or
 * changing a migration and commit the file with it; test/storage/schema-snapshot.test.ts fails until then.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestPostgres } from '../test/helpers/postgres';
import { removeTempDirs } from '../test/temp-dir';
import { freshWorkspaceSnapshot, SNAPSHOT_FILE } from './workspace-schema';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = await startTestPostgres();
try {
  const client = await server.connect(undefined, await server.createDatabase('paydesk_schema'));
  const snapshot = await freshWorkspaceSnapshot(client);
  writeFileSync(join(root, SNAPSHOT_FILE), snapshot);
  console.log(`Wrote ${SNAPSHOT_FILE} (${snapshot.split("\n").length} lines).`);
} finally {
  await server.stop();
  removeTempDirs();
}
