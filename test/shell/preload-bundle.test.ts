/**
 * The preload as Electron would load it: built by the project's own vite config to CommonJS, then
 * run in a fresh context whose `require` knows only `electron`, as in a sandboxed renderer.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { build } from 'vite';
import { CHANNELS } from '../../shared/api';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'paydesk-preload-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('built preload bundle', () => {
  it('requires nothing but electron and exposes exactly the channel map plus on', async () => {
    await build({
      configFile: join(repoRoot, 'vite.config.ts'),
      root: repoRoot,
      mode: 'preload',
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true },
    });
    const code = readFileSync(join(outDir, 'preload.cjs'), 'utf8');

    const required: string[] = [];
    const exposeInMainWorld = vi.fn();
    const invoke = vi.fn(async () => ({ ok: true, value: null }));
    const electron = { contextBridge: { exposeInMainWorld }, ipcRenderer: { invoke, on: vi.fn(), removeListener: vi.fn() } };
    const sandboxRequire = (name: string): unknown => {
      required.push(name);
      if (name === 'electron') return electron;
      throw new Error(`module not found: ${name}`);
    };
    const module = { exports: {} };
    runInNewContext(code, { require: sandboxRequire, module, exports: module.exports, console });

    expect(required).toEqual(['electron']);
    expect(exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [name, api] = exposeInMainWorld.mock.calls[0]! as unknown as [string, Record<string, (input: unknown) => unknown>];
    expect(name).toBe('paydesk');
    expect(Object.keys(api).sort()).toEqual([...CHANNELS, 'on'].sort());
    await api['transactions:search']!({ query: {} });
    expect(invoke).toHaveBeenCalledWith('transactions:search', { query: {} });
  });
});
