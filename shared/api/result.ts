/**
 * What every handler answers, whichever transport carried the call: a value or a failure with a
 * code, never a thrown error (Electron carries only an error's message across `invoke`).
 */
import type { ApiFailure } from './types';

/** Every handler answers with this; nothing is thrown across a transport. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

/**
 * Console-side error codes (besides the API's own codes in ERROR_CODES):
 * - INVALID_INPUT: the handler's input failed its schema (fields has the details);
 * - OUTCOME_UNKNOWN: a POST may have reached the server, no answer (journalId to follow up);
 * - NOT_SENT: the request could not be sent (connection refused, DNS...);
 * - BAD_RESPONSE: the server answered something that is not an envelope;
 * - NO_KEYCHAIN: no OS keychain available (message says what to install or unlock);
 * - KEYCHAIN_UNRESPONSIVE: the OS keychain did not answer in time (stalled or crashed): nothing was sent;
 * - SECRET_MISSING: the profile's secret key is not in the keychain;
 * - CONFIRMATION_REQUIRED: a live payout without a valid confirmation token;
 * - LIVE_REFUSED: a live profile on a browser host started without --allow-live;
 * - NOT_FOUND: no such profile / journal entry;
 * - CONFLICT: the operation does not fit the entry's state (e.g. resend before resolveUnknown);
 * - SANDBOX_UNAVAILABLE: a sandbox operation on a profile that is not the local sandbox;
 * - INTERNAL: an unexpected failure (logged in main without secrets);
 * - TEAM_KEYS_MISSING: a team profile this desktop has no keys for yet (profileId: add them in Settings);
 * - PROFILE_DESKTOP_ONLY: on a team workspace, a desktop's own live profile (live money goes through team profiles);
 * - TEAM_PROFILES_UNAVAILABLE: a team profile operation on this desktop's own journal (no team there);
 * - TEAM_POLICY_APPLIES: on this desktop's own journal, a team profile, or a desktop profile sending with a team profile's payout key (the team's approval policy still covers it);
 * - ALREADY_SENT: the journal already holds this external id as a payout or payment (journalId: open it); never sent twice;
 * - MAY_NOT_SEND: on a team workspace, a login whose roles do not send (support, an approver or admin only): refused before anything is written or sent;
 * - SEND_FROM_BATCH: History's "Send again" of a batch row's payout: its batch sends it again, under the row's claim.
 */
export const CONSOLE_ERROR_CODES = [
  'INVALID_INPUT',
  'OUTCOME_UNKNOWN',
  'NOT_SENT',
  'BAD_RESPONSE',
  'NO_KEYCHAIN',
  'KEYCHAIN_UNRESPONSIVE',
  'SECRET_MISSING',
  'CONFIRMATION_REQUIRED',
  'LIVE_REFUSED',
  'NOT_FOUND',
  'CONFLICT',
  'SANDBOX_UNAVAILABLE',
  'INTERNAL',
  'TEAM_KEYS_MISSING',
  'PROFILE_DESKTOP_ONLY',
  'TEAM_PROFILES_UNAVAILABLE',
  'SANDBOX_ELSEWHERE',
  'ALREADY_SENT',
  'TEAM_POLICY_APPLIES',
  'MAY_NOT_SEND',
  'SEND_FROM_BATCH',
] as const;
export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[number];

