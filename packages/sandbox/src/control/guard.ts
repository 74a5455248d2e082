/**
 * Who may use the control API: callers on a loopback socket address (never a header, which a
 * client could forge) presenting the admin token. Loopback first (403), then the token (401).
 */
import { randomBytes } from 'node:crypto';
import { isLoopbackAddress, secretMatches } from '../net/loopback';

export { isLoopbackAddress } from '../net/loopback';

export type ControlErrorCode =
  | 'MALFORMED_REQUEST'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'ADMIN_TOKEN_REQUIRED'
  | 'INVALID_ADMIN_TOKEN'
  | 'LOOPBACK_ONLY'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VALIDATION_ERROR'
  | 'INTERNAL_ERROR';

export const CONTROL_ERROR_STATUS: Record<ControlErrorCode, number> = {
  MALFORMED_REQUEST: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ADMIN_TOKEN_REQUIRED: 401,
  INVALID_ADMIN_TOKEN: 401,
  LOOPBACK_ONLY: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 422,
  INTERNAL_ERROR: 500,
};

/** A refusal of the control API, answered with the same envelope as the public API. */
export class ControlError extends Error {
  readonly status: number;
  constructor(
    readonly code: ControlErrorCode,
    message: string,
    readonly errors: unknown[] | Record<string, string[]> = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ControlError';
    this.status = CONTROL_ERROR_STATUS[code];
  }
}

/** Who may reach the control API: this machine only (the default), or any address with the token. */
export type ControlFrom = 'loopback' | 'any';

/** Printable, no spaces: a token must survive being pasted into a header or a shell. */
export const ADMIN_TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{16,200}$/;

export function newAdminToken(): string {
  return `adm_${randomBytes(24).toString('base64url')}`;
}

/**
 * Throws the refusal for a caller that may not use the control API. `from: 'any'` (a team's shared
 * sandbox, docs/decisions/team-sandbox-control-api.md) answers any address that presents the token.
 */
export function checkControlAccess(remoteAddress: string | undefined, authorization: string | string[] | undefined, adminToken: string, from: ControlFrom = 'loopback'): void {
  if (from === 'loopback' && !isLoopbackAddress(remoteAddress)) {
    throw new ControlError('LOOPBACK_ONLY', 'The sandbox control API only answers calls from this machine (a loopback address).');
  }
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  if (header === undefined || header.trim() === '') {
    throw new ControlError('ADMIN_TOKEN_REQUIRED', 'Send the admin token printed at engine start as Authorization: Bearer <token>.');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  if (!match || !secretMatches(adminToken, match[1])) {
    throw new ControlError('INVALID_ADMIN_TOKEN', 'The admin token is wrong: use Authorization: Bearer <the token printed at engine start>.');
  }
}
