/**
 * How a desktop reaches its team workspace, checked at the boundary: where the server is, which
 * database, whose login, and TLS. The password is not part of these settings (it lives in the OS
 * keychain, like the API keys) and is passed in by main when it connects.
 *
 * TLS: a server on this machine (loopback or a unix socket folder) may be reached without it; any
 * other host must be reached over TLS with the certificate verified against the system's
 * authorities or the CA the team gives (a managed PostgreSQL). There is no "TLS without
 * verification": it would let anyone on the path read the team's journal.
 */
import { desktopConnectionOptions } from '../../desktop-id';
import { z } from 'zod';
import type pg from 'pg';
import type { WorkspaceFaultCode } from '../../../../shared/api';
import { english } from '../../../../shared/i18n';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

export const workspaceConnectionSchema = z
  .strictObject({
    /** A host name or address, or an absolute unix socket folder. */
    host: z.string().trim().min(1).max(255),
    port: z.number().int().min(1).max(65535).default(5432),
    database: z.string().regex(IDENTIFIER, 'a database name: letters, digits, _ $ -, at most 63'),
    user: z.string().regex(IDENTIFIER, 'a login name: letters, digits, _ $ -, at most 63'),
    tls: z.enum(['verify', 'off']),
    /** PEM of the CA that signed the server's certificate, when it is not a system authority. */
    ca: z.string().max(100_000).startsWith('-----BEGIN CERTIFICATE-----').optional(),
  })
  .refine((value) => value.tls === 'verify' || isLocal(value.host), {
    path: ['tls'],
    message: 'a server on another machine must be reached over TLS with its certificate verified',
  });
export type WorkspaceConnection = z.infer<typeof workspaceConnectionSchema>;

function isLocal(host: string): boolean {
  return host.startsWith('/') || LOOPBACK.has(host);
}

/** node-postgres settings for a checked connection and the login's password (from the keychain). */
/** `desktopId`: this desktop's own id (../../desktop-id.ts), stamped by the database on the entries it writes. */
export function poolConfig(connection: WorkspaceConnection, password: string | undefined, desktopId?: string): pg.PoolConfig {
  return {
    host: connection.host,
    port: connection.port,
    database: connection.database,
    user: connection.user,
    ...(password !== undefined ? { password } : {}),
    ssl: connection.tls === 'verify' ? { rejectUnauthorized: true, ...(connection.ca ? { ca: connection.ca } : {}), servername: connection.host } : false,
    // A server that does not answer must not hang a screen: the desktop says so instead.
    connectionTimeoutMillis: 10_000,
    application_name: 'paydesk',
    ...(desktopId !== undefined ? { options: desktopConnectionOptions(desktopId) } : {}),
  };
}

export type WorkspaceFault = 'UNREACHABLE' | 'LOGIN_REFUSED' | 'TLS_REFUSED' | 'NO_PERMISSION' | 'CONNECTION_LOST' | 'NO_DATABASE' | 'OTHER';

/** The English sentence of a workspace fault: its catalogue title and what to do (shared/i18n errors). */
export function workspaceFaultSentence(code: WorkspaceFaultCode): string {
  const message = english.errors[code];
  return `${message.title} ${message.next}`;
}

const sentence = (fault: WorkspaceFault) => workspaceFaultSentence(`WORKSPACE_${fault}`);

/** What went wrong with the workspace, as a code and a sentence saying what to do (English; the screens translate by code). */
export function describeWorkspaceError(error: unknown): { code: WorkspaceFault; message: string } {
  const e = error as { code?: string; message?: string } | null;
  const code = e?.code ?? '';
  const text = e?.message ?? String(error);
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ENOENT', 'EAI_AGAIN'].includes(code) || /timeout expired/i.test(text)) {
    return { code: 'UNREACHABLE', message: sentence('UNREACHABLE') };
  }
  if (code === '28P01' || code === '28000') {
    return { code: 'LOGIN_REFUSED', message: sentence('LOGIN_REFUSED') };
  }
  if (/self[- ]signed|certificate|SSL|TLS/i.test(text) || code.startsWith('ERR_TLS') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') {
    return { code: 'TLS_REFUSED', message: sentence('TLS_REFUSED') };
  }
  if (code === '42501') {
    return { code: 'NO_PERMISSION', message: sentence('NO_PERMISSION') };
  }
  if (code === '3D000') {
    return { code: 'NO_DATABASE', message: sentence('NO_DATABASE') };
  }
  if (['57P01', '57P02', '57P03', '08006', '08003', 'ECONNRESET', 'EPIPE'].includes(code) || /Connection terminated|terminating connection|not queryable/i.test(text)) {
    return { code: 'CONNECTION_LOST', message: sentence('CONNECTION_LOST') };
  }
  // The server's own words help the person who reads the command line's error (npm run team:import).
  return { code: 'OTHER', message: `${sentence('OTHER')} (${text.slice(0, 200)})` };
}
