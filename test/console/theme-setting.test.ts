/** Settings → Theme is remembered by main like the language (issue 16 item 1), on a real settings file. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOk, startRuntime, tempDir } from './helpers';

describe('theme preference', () => {
  it('is the system’s until set, then remembered across a restart, apart from the language', async () => {
    const dir = tempDir();
    try {
      const first = await startRuntime({ userDataDir: dir, engine: false });
      try {
        expect(expectOk(await first.handlers['app:info']({})).theme).toBe('system');
        expect(expectOk(await first.handlers['preferences:set']({ language: 'fr' }))).toEqual({ language: 'fr' });
        expect(expectOk(await first.handlers['preferences:set']({ theme: 'dark' }))).toEqual({ theme: 'dark' });
        const refused = await first.handlers['preferences:set']({ theme: 'sepia' as never });
        expect(refused.ok ? null : refused.error.code).toBe('INVALID_INPUT');
        const empty = await first.handlers['preferences:set']({});
        expect(empty.ok ? null : empty.error.code).toBe('INVALID_INPUT');
        expect(expectOk(await first.handlers['app:info']({}))).toMatchObject({ language: 'fr', theme: 'dark' });
      } finally {
        await first.close();
      }
      expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toMatchObject({ language: 'fr', theme: 'dark' });
      const second = await startRuntime({ userDataDir: dir, engine: false });
      try {
        expect(expectOk(await second.handlers['app:info']({}))).toMatchObject({ language: 'fr', theme: 'dark' });
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a settings file with an unknown theme is kept aside like any invalid file', async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ version: 1, activeProfileId: 'local-sandbox', profiles: [], theme: 'neon' }));
      const runtime = await startRuntime({ userDataDir: dir, engine: false });
      try {
        const info = expectOk(await runtime.handlers['app:info']({}));
        expect(info.theme).toBe('system');
        expect(info.notices?.map((n) => n.code)).toContain('SETTINGS_CORRUPT');
      } finally {
        await runtime.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
