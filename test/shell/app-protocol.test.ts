import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { protocol } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronModule);

const { appProtocolResponse, isAppUrl, registerAppScheme, serveRenderer } = await import('../../electron/shell/app-protocol');
const { CONTENT_SECURITY_POLICY, resolveRendererPath } = await import('../../electron/net/renderer-files');

let root: string;
let rendererDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'paydesk-protocol-'));
  rendererDir = join(root, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Paydesk</title>');
  writeFileSync(join(rendererDir, 'assets', 'index.js'), 'export {}');
  writeFileSync(join(root, 'secret.txt'), 'do-not-serve');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function get(url: string, method = 'GET') {
  return appProtocolResponse(rendererDir, { url, method });
}

describe('app:// protocol', () => {
  it('registers app as a standard, secure scheme without CSP bypass', () => {
    registerAppScheme();
    const [schemes] = protocol.registerSchemesAsPrivileged.mock.calls[0]!;
    expect(schemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    expect(schemes[0].privileges).not.toHaveProperty('bypassCSP');
    expect(schemes[0].privileges).not.toHaveProperty('corsEnabled');
  });

  it('serves dist/renderer through protocol.handle, with the CSP header', async () => {
    serveRenderer(rendererDir);
    const [scheme, handler] = protocol.handle.mock.calls[0]!;
    expect(scheme).toBe('app');
    const res: Response = await handler(new Request('app://paydesk/index.html'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await res.text()).toContain('<title>Paydesk</title>');
  });

  it('serves the entry page for the bare origin and assets by path', async () => {
    expect((await get('app://paydesk/')).status).toBe(200);
    const script = await get('app://paydesk/assets/index.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('refuses path traversal out of the renderer folder', async () => {
    for (const url of ['app://paydesk/..%2fsecret.txt', 'app://paydesk/assets/..%2F..%2Fsecret.txt', 'app://paydesk/%2e%2e%2fsecret.txt']) {
      const res = await get(url);
      expect(res.status, url).toBe(403);
      expect(await res.text()).not.toContain('do-not-serve');
    }
    for (const url of ['app://paydesk/..%5csecret.txt', 'app://paydesk/index.html%00.js']) {
      expect((await get(url)).status, url).toBe(400);
    }
    // Plain dot segments are folded by URL parsing before they reach the file system.
    const folded = await get('app://paydesk/../../secret.txt');
    expect(folded.status).toBe(404);
    expect(await folded.text()).not.toContain('do-not-serve');
  });

  it('answers only its own host and only reads', async () => {
    expect((await get('app://other/index.html')).status).toBe(404);
    expect((await get('app://paydesk/index.html', 'POST')).status).toBe(405);
    expect((await get('app://paydesk/missing.js')).status).toBe(404);
    expect((await get('app://paydesk/assets')).status).toBe(404);
  });

  it('checks paths against the folder, not by string prefix', () => {
    // A sibling folder whose name starts with the renderer folder's name is still outside.
    expect(resolveRendererPath('/srv/renderer', '/..%2frenderer-evil/x.js')).toMatchObject({ ok: false, status: 403 });
    expect(resolveRendererPath('/srv/renderer', '/a/b/../c.js')).toEqual({ ok: true, file: '/srv/renderer/a/c.js' });
  });

  it('recognises our own pages by scheme and host', () => {
    expect(isAppUrl('app://paydesk/index.html')).toBe(true);
    expect(isAppUrl('app://paydesk.evil/index.html')).toBe(false);
    expect(isAppUrl('app://user@paydesk/index.html')).toBe(false);
    expect(isAppUrl('https://paydesk/index.html')).toBe(false);
    expect(isAppUrl('garbage')).toBe(false);
  });
});
