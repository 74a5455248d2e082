/**
 * The settings backend in Electron: electron-store (a `conf` subclass) with
 * `<userData>/settings.json`, the same file the plain-Node `conf` backend writes, so a user
 * moving between `npm start` and `npm run start:browser` on one data folder keeps one set of
 * profiles.
 */
import path from 'node:path';
import { ipcMain } from 'electron';
import ElectronStore from 'electron-store';
import { storeBackend, type SettingsBackend } from '../console/settings';

/**
 * electron-store answers a synchronous `electron-store-get-data` IPC message (the user-data path
 * and app version) for renderer-side stores. We have none, and no IPC listener may skip the
 * sender check, so it is removed as soon as the store exists.
 */
const ELECTRON_STORE_RENDERER_CHANNEL = 'electron-store-get-data';

export function electronSettingsBackend(userDataDir: string): SettingsBackend {
  return storeBackend(() => {
    // clearInvalidConfig false: a corrupt file makes the constructor throw, and the settings
    // module moves it aside and tells the user instead of silently emptying it.
    const store = new ElectronStore<Record<string, unknown>>({ cwd: userDataDir, name: 'settings', clearInvalidConfig: false });
    ipcMain.removeAllListeners(ELECTRON_STORE_RENDERER_CHANNEL);
    return store;
  }, path.join(userDataDir, 'settings.json'));
}
