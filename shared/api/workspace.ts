/**
 * Choosing where the console records (issue 24): this desktop's own journal, or a team workspace
 * on PostgreSQL. The channels' inputs and what they answer; main checks the same connection again
 * with its own schema (electron/console/storage/postgres/connection.ts) before it connects.
 * The password travels only from the form to main, once, and is kept in the OS keychain there:
 * no answer ever carries it.
 */
import { z } from 'zod';
import type { WorkspaceFaultCode } from './workspace-faults';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;
/** A sentence, not a fragment: it is shown alone under the field. */
export const IDENTIFIER_RULE = 'Use only letters, digits, _, $ and -, starting with a letter or _, at most 63 characters.';
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/** A server on this machine may be reached without TLS; any other only with its certificate verified. */
export function isLocalWorkspaceHost(host: string): boolean {
  return host.startsWith('/') || LOOPBACK.includes(host.trim());
}

export const workspaceConnectionInputSchema = z
  .strictObject({
    host: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
    port: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be from 1 to 65535').max(65535, 'must be from 1 to 65535'),
    database: z.string().regex(IDENTIFIER, IDENTIFIER_RULE),
    user: z.string().regex(IDENTIFIER, IDENTIFIER_RULE),
    tls: z.enum(['verify', 'off']),
    /** The PEM text of the CA that signed the server's certificate (a managed PostgreSQL's), when it is not a system authority. */
    ca: z
      .string()
      .max(100_000, 'the CA file is larger than 100 kB')
      .refine((text) => text.trimStart().startsWith('-----BEGIN CERTIFICATE-----'), 'must be a PEM certificate (-----BEGIN CERTIFICATE-----)')
      .optional(),
  })
  .refine((value) => value.tls === 'verify' || isLocalWorkspaceHost(value.host), {
    path: ['tls'],
    message: 'a server on another machine must be reached over TLS with its certificate verified',
  });
export type WorkspaceConnectionInput = z.infer<typeof workspaceConnectionInputSchema>;

/** Given: stored in the keychain once the workspace answered with it. Absent: the one already in the keychain. */
const password = z.string().min(1, 'is required').max(1000, 'must be at most 1000 characters').optional();

export const WORKSPACE_CHANNEL_INPUTS = {
  /** Where this console records now, and as whom. */
  'workspace:status': z.strictObject({}),
  /** Connects once and says who the login is and its role (or the fault); a password that opened it is kept in the keychain for Use. */
  'workspace:test': z.strictObject({ connection: workspaceConnectionInputSchema, password }),
  /** Connects; when it answers, saves the choice (without the password) and the console re-opens on it. */
  'workspace:use': z.strictObject({ connection: workspaceConnectionInputSchema, password }),
  /** Back to this desktop's own journal (the workspace's records stay in the workspace). */
  'workspace:useDesktop': z.strictObject({}),
  /** After a fault: tries the chosen workspace again. */
  'workspace:retry': z.strictObject({}),
} as const;

export type WorkspaceRoleName = 'finance' | 'support' | 'admin';

export interface WorkspaceWho {
  login: string;
  roles: WorkspaceRoleName[];
}

/** The chosen workspace as shown (never the password). */
export interface WorkspacePlace {
  host: string;
  port: number;
  database: string;
  user: string;
  tls: 'verify' | 'off';
  hasCa: boolean;
}

export type WorkspaceStatus =
  /** `last`: the workspace this desktop left, so its fields are offered again (never the password). */
  | { store: 'desktop'; last?: WorkspacePlace }
  | { store: 'workspace'; place: WorkspacePlace; state: 'open' | 'lost'; who: WorkspaceWho; schemaVersion: number }
  /** Chosen but not open: nothing is recorded anywhere until it opens or the person goes back to this desktop. */
  | { store: 'workspace'; place: WorkspacePlace; state: 'fault'; fault: { code: WorkspaceFaultCode | 'NO_KEYCHAIN' | 'KEYCHAIN_UNRESPONSIVE'; message: string } };

export interface WorkspaceChannelResults {
  'workspace:status': WorkspaceStatus;
  'workspace:test': { who: WorkspaceWho; schemaVersion: number };
  /** `reopened`: the console now records in the workspace; the window loads again. */
  'workspace:use': { reopened: true; status: WorkspaceStatus };
  'workspace:useDesktop': { reopened: true; status: WorkspaceStatus };
  'workspace:retry': { status: WorkspaceStatus };
}
