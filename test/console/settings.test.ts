/**
 * Settings and profiles on a real file (conf in a temp folder): validated when read, a corrupt file
 * kept aside as a backup with a notice, secrets never saved.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confSettingsBackend, createSettings, LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { expectOk, startRuntime, tempDir } from './helpers';

const PROFILE = {
  name: 'Acme live',
  baseUrl: 'https://api.example.com/gw',
  environment: 'live' as const,
  headerWord: 'ACME',
  paymentPublicKey: 'pk_live_payment_acme1',
  payoutPublicKey: 'pk_live_payout_acme1',
};

describe('settings file', () => {
  it('starts with the local sandbox active and keeps saved profiles across restarts', () => {
    const dir = tempDir();
    const settings = createSettings(confSettingsBackend(dir));
    expect(settings.activeProfileId()).toBe(LOCAL_SANDBOX_ID);
    const saved = settings.saveProfile(PROFILE);
    settings.setActiveProfileId(saved.id);
    const again = createSettings(confSettingsBackend(dir));
    expect(again.profiles()).toEqual([{ id: saved.id, ...PROFILE }]);
    expect(again.activeProfileId()).toBe(saved.id);
    expect(again.notices()).toEqual([]);
    // Secrets are never part of the document, nor is "has a secret" (it is derived).
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).profiles[0]).sort()).toEqual(
      ['baseUrl', 'environment', 'headerWord', 'id', 'name', 'paymentPublicKey', 'payoutPublicKey'].sort(),
    );
    expect(again.deleteProfile(saved.id)).toBe(true);
    expect(again.activeProfileId()).toBe(LOCAL_SANDBOX_ID);
  });

  it.each([
    ['not JSON', '{"version": 1, "profiles": [ {"id": '],
    ['JSON of the wrong shape', JSON.stringify({ version: 1, activeProfileId: 'x', profiles: [{ id: 'p', name: 'n', baseUrl: 'ftp://x', environment: 'prod' }] })],
    ['a JSON array', '[1, 2, 3]'],
  ])('keeps a corrupt file (%s) aside as a backup, tells the user, and starts with defaults', (_label, text) => {
    const dir = tempDir();
    const path = join(dir, 'settings.json');
    writeFileSync(path, text);
    const settings = createSettings(confSettingsBackend(dir), () => Date.UTC(2026, 10, 22, 1, 2, 3));
    expect(settings.activeProfileId()).toBe(LOCAL_SANDBOX_ID);
    expect(settings.profiles()).toEqual([]);
    const [notice] = settings.notices();
    expect(notice?.code).toBe('SETTINGS_CORRUPT');
    expect(notice?.backupPath).toBe(`${path}.corrupt-2026-11-22T01-02-03-000Z`);
    expect(notice?.message).toContain(notice!.backupPath!);
    expect(readFileSync(notice!.backupPath!, 'utf8')).toBe(text);
    // The fresh file is valid and usable.
    settings.saveProfile(PROFILE);
    expect(createSettings(confSettingsBackend(dir)).profiles()).toHaveLength(1);
    expect(readdirSync(dir).filter((name) => name.includes('corrupt'))).toHaveLength(1);
  });

  it('shows the corrupt-file notice through app:info', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), 'not json at all');
    const runtime = await startRuntime({ userDataDir: dir, engine: false });
    try {
      const info = expectOk(await runtime.handlers['app:info']({}));
      expect(info.notices?.[0]?.code).toBe('SETTINGS_CORRUPT');
      expect(info.notices?.[0]?.message).toMatch(/kept aside as .*settings\.json\.corrupt-/);
      // The window shows the sentence of the code in its language, with the backup's path as a parameter.
      expect(String(info.notices?.[0]?.params?.backupPath)).toMatch(/settings\.json\.corrupt-/);
      expect(existsSync(join(dir, 'settings.json'))).toBe(true);
    } finally {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('language preference', () => {
  it('is the system language until set, then remembered across a restart of the console', async () => {
    const dir = tempDir();
    try {
      const first = await startRuntime({ userDataDir: dir, engine: false });
      try {
        expect(expectOk(await first.handlers['app:info']({})).language).toBe('system');
        expect(expectOk(await first.handlers['preferences:set']({ language: 'fr' }))).toEqual({ language: 'fr' });
        const refused = await first.handlers['preferences:set']({ language: 'de' });
        expect(refused.ok ? null : refused.error.code).toBe('INVALID_INPUT');
        expect(expectOk(await first.handlers['app:info']({})).language).toBe('fr');
      } finally {
        await first.close();
      }
      expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).language).toBe('fr');
      const second = await startRuntime({ userDataDir: dir, engine: false });
      try {
        expect(expectOk(await second.handlers['app:info']({})).language).toBe('fr');
        expectOk(await second.handlers['preferences:set']({ language: 'system' }));
      } finally {
        await second.close();
      }
      const third = await startRuntime({ userDataDir: dir, engine: false });
      try {
        expect(expectOk(await third.handlers['app:info']({})).language).toBe('system');
      } finally {
        await third.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
