/** The Electron settings backend: the real electron-store on a real file, under the real settings module. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ipcMain } from './electron-mock';

// electron-store (a node_modules package) imports the real `electron` package, which vi.mock does
// not reach; its index.js would try to download the missing binary. With this set it only returns
// a path, and electron-store runs on plain Node (we always pass `cwd`).
vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent/electron-dist';
});
vi.mock('electron', async () => (await import('./electron-mock')).electronModule);

const { electronSettingsBackend } = await import('../../electron/shell/settings-store');
const { createSettings } = await import('../../electron/console/settings');

const profile = {
  name: 'Staging',
  baseUrl: 'https://staging.example.com',
  environment: 'sandbox' as const,
  headerWord: 'SVC',
  paymentPublicKey: 'pk_test_pay',
  payoutPublicKey: 'pk_test_out',
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'paydesk-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('electron-store settings backend', () => {
  it('keeps profiles in <userData>/settings.json across restarts', () => {
    const first = createSettings(electronSettingsBackend(dir));
    const saved = first.saveProfile(profile);
    first.setActiveProfileId(saved.id);
    const file = join(dir, 'settings.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, activeProfileId: saved.id, profiles: [saved] });

    const second = createSettings(electronSettingsBackend(dir));
    expect(second.profiles()).toEqual([saved]);
    expect(second.activeProfileId()).toBe(saved.id);
    expect(second.notices()).toEqual([]);
  });

  it('moves a corrupt file aside and tells the user, never silently emptying it', () => {
    writeFileSync(join(dir, 'settings.json'), '{"version":1,"profiles":[{"name":');
    const settings = createSettings(electronSettingsBackend(dir));
    expect(settings.notices()).toMatchObject([{ code: 'SETTINGS_CORRUPT' }]);
    const backup = settings.notices()[0]!.backupPath!;
    expect(readFileSync(backup, 'utf8')).toBe('{"version":1,"profiles":[{"name":');
    expect(readdirSync(dir).filter((name) => name.startsWith('settings.json.corrupt-'))).toHaveLength(1);
    settings.saveProfile(profile);
    expect(existsSync(join(dir, 'settings.json'))).toBe(true);
  });

  it('leaves no IPC listener behind that skips the sender check', () => {
    createSettings(electronSettingsBackend(dir));
    expect(ipcMain.removeAllListeners).toHaveBeenCalledWith('electron-store-get-data');
  });
});
