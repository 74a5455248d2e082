/**
 * The built renderer's files (dist/renderer), served by both transports: the app:// protocol in
 * Electron and the browser host over HTTP. Pure Node (no Electron), so both share one path check
 * and one content policy.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The page's Content-Security-Policy, sent as a header with every file. It matches the renderer's
 * own <meta> policy (several policies intersect, so the header must not be looser): no eval, no
 * remote origin, no plugins, no framing. Inline styles stay allowed because React and the
 * virtualised tables set element styles.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer of both transports (the CSP plus the usual hardening). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // No page address (with its one-time code or fragment) ever leaves in a Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export type ResolvedPath = { ok: true; file: string } | { ok: false; status: 400 | 403; reason: string };

/**
 * Maps a URL pathname (still percent-encoded) to a file inside `root`, or refuses it.
 * Refused: bad percent-encoding, NUL bytes, backslashes (a separator on Windows), and any path
 * that resolves outside `root` after `..` segments and encoded slashes are applied.
 */
export function resolveRendererPath(root: string, urlPath: string): ResolvedPath {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { ok: false, status: 400, reason: 'malformed percent-encoding in path' };
  }
  if (decoded.includes('\0')) return { ok: false, status: 400, reason: 'NUL byte in path' };
  if (decoded.includes('\\')) return { ok: false, status: 400, reason: 'backslash in path' };
  let relative = decoded.replace(/^\/+/, '');
  if (relative === '' || relative.endsWith('/')) relative += 'index.html';
  const base = path.resolve(root);
  const file = path.resolve(base, relative);
  const inside = path.relative(base, file);
  if (inside === '' || inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
    return { ok: false, status: 403, reason: 'path outside the renderer folder' };
  }
  return { ok: true, file };
}

export type RendererFile =
  | { ok: true; file: string; contentType: string; body: Buffer }
  | { ok: false; status: 400 | 403 | 404; reason: string };

/** Reads the file a URL pathname names inside `root`; only regular files are served. */
export async function readRendererFile(root: string, urlPath: string): Promise<RendererFile> {
  const resolved = resolveRendererPath(root, urlPath);
  if (!resolved.ok) return resolved;
  try {
    const info = await stat(resolved.file);
    if (!info.isFile()) return { ok: false, status: 404, reason: 'not found' };
    const body = await readFile(resolved.file);
    return { ok: true, file: resolved.file, contentType: contentTypeOf(resolved.file), body };
  } catch {
    return { ok: false, status: 404, reason: 'not found' };
  }
}
