/**
 * The workspace's migrations as files: ./migrations/NNNN-name.sql, one a version, read in order.
 *
 * Under Node (vitest, tsx: `npm run team:local`, `npm run team:import`, the browser host, the
 * benches) they are read from the folder beside this module. The Electron main process is one
 * bundle: its build replaces this module by the same files' text (vite.config.ts bundleWorkspaceMigrations),
 * so a packaged app reads no file to migrate.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One migration file as written: its name (`0021-approval-requests-and-the-sending-gate.sql`) and its text. */
export interface MigrationFile {
  fileName: string;
  text: string;
}

/** The folder of the migration files in the source tree. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** Every `.sql` file of the folder, by name (so by version: the names start with four digits). */
export function readMigrationFiles(folder: string = MIGRATIONS_FOLDER): MigrationFile[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((fileName) => ({ fileName, text: readFileSync(join(folder, fileName), 'utf8') }));
}
