/**
 * The main process's build carries the workspace's migrations inside its bundle.
 *
 * electron/console/storage/postgres/migration-files.ts reads ./migrations/*.sql from beside itself,
 * which holds under Node (vitest, tsx) but not in dist/main/main.js, one file in an asar archive.
 * For that build, this plugin replaces the module by one that returns the same files' text, read
 * here with the same function: a packaged app reads no file to migrate, and the SQL it applies is
 * the folder's, byte for byte (test/storage/migration-files.test.ts evaluates what it emits).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { readMigrationFiles } from '../electron/console/storage/postgres/migration-files';

const MODULE = fileURLToPath(new URL('../electron/console/storage/postgres/migration-files.ts', import.meta.url));
const FOLDER = fileURLToPath(new URL('../electron/console/storage/postgres/migrations', import.meta.url));

/** The module that stands for migration-files.ts in the bundle: the folder's files as data. */
export function bundledMigrationFilesModule(folder: string = FOLDER): string {
  return `export const MIGRATIONS_FOLDER = null;\nexport function readMigrationFiles() {\n  return ${JSON.stringify(readMigrationFiles(folder))};\n}\n`;
}

export function bundleWorkspaceMigrations(): Plugin {
  return {
    name: 'paydesk-bundle-workspace-migrations',
    load(id) {
      if (id.split('?')[0] !== MODULE) return null;
      for (const file of readMigrationFiles(FOLDER)) this.addWatchFile(join(FOLDER, file.fileName));
      return bundledMigrationFilesModule();
    },
  };
}
