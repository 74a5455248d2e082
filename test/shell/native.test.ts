import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ELECTRON_SQLITE_BINDING, electronSqliteBinding } from '../../electron/shell/native';

const appPath = mkdtempSync(join(tmpdir(), 'paydesk-native-'));
afterAll(() => rmSync(appPath, { recursive: true, force: true }));

describe('better-sqlite3 binding for Electron', () => {
  it('points where scripts/ensure-electron.mjs builds it', () => {
    const script = readFileSync(new URL('../../scripts/ensure-electron.mjs', import.meta.url), 'utf8');
    expect(script).toContain("join(root, '.electron-native', 'better-sqlite3')");
    expect(script).toContain("join(target, 'build', 'Release', 'better_sqlite3.node')");
    expect(ELECTRON_SQLITE_BINDING).toBe(join('.electron-native', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
  });

  it('uses the Electron build in development once it exists', () => {
    expect(electronSqliteBinding({ isPackaged: false, appPath })).toBeUndefined();
    const file = join(appPath, ELECTRON_SQLITE_BINDING);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
    expect(electronSqliteBinding({ isPackaged: false, appPath })).toBe(file);
  });

  it('leaves a packaged app on the binding electron-builder rebuilt', () => {
    expect(electronSqliteBinding({ isPackaged: true, appPath, exists: () => true })).toBeUndefined();
  });
});
