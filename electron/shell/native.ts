/**
 * better-sqlite3 under Electron in development: node_modules holds the Node-ABI build (what
 * `npm test` uses), so `npm start` builds an Electron-ABI copy into .electron-native/
 * (scripts/ensure-electron.mjs) and main hands its path to better-sqlite3 as `nativeBinding`.
 * A packaged app has node_modules rebuilt for Electron by electron-builder: the default binding.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Where scripts/ensure-electron.mjs puts the Electron build, relative to the project root. */
export const ELECTRON_SQLITE_BINDING = path.join('.electron-native', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

/**
 * The binding to pass as `betterSqliteNativeBinding`, or undefined for better-sqlite3's own.
 * `appPath` is `app.getAppPath()`: the project root when started with `electron .`.
 */
export function electronSqliteBinding(options: { isPackaged: boolean; appPath: string; exists?: (file: string) => boolean }): string | undefined {
  if (options.isPackaged) return undefined;
  const file = path.join(options.appPath, ELECTRON_SQLITE_BINDING);
  return (options.exists ?? existsSync)(file) ? file : undefined;
}
