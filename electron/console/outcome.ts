/**
 * The one reading of the service's answer to an initiate (POST), for the single send and the
 * batch runner alike. What matters is whether the money may have moved:
 * - `accepted`: the service created it (a transaction came back);
 * - `refused`: a 4xx with an error code: nothing was created;
 * - `exists`: a refusal because the external id is already used (the sandbox answers 422
 *   VALIDATION_ERROR with an `external_id` field error; a 409 says the same): money under this
 *   id may well exist, so it is NOT a failure: the entry is looked up by its external id and
 *   adopts the existing transaction (docs/decisions/external-id-is-identity.md);
 * - `retry-later`: a 429: nothing was created, the service asks to wait (Retry-After);
 * - `not-sent`: the request never left (connection refused, DNS): nothing was created;
 * - `may-exist`: a timeout, a reset, an unreadable answer or any 5xx (503 included: a gateway may
 *   answer it after the service took the request): it is looked up by its external id before
 *   anything is sent again.
 */
import type { FieldErrors } from '../../shared/contract';
import type { ClientResult } from './deps';
import type { ErrorRecord } from './journal/phase';
import { transactionOf } from './journal/rows';
import type { ServiceTransaction } from './journal/rows';

export type InitiateOutcome =
  | { kind: 'accepted'; tx: ServiceTransaction; httpStatus: number; message: string | null }
  | { kind: 'refused'; error: ErrorRecord; fields?: FieldErrors }
  | { kind: 'exists'; error: ErrorRecord; fields?: FieldErrors }
  | { kind: 'retry-later'; error: ErrorRecord; retryAfterSeconds: number | null }
  | { kind: 'not-sent'; message: string }
  | { kind: 'may-exist'; cause: 'server-error' | 'no-answer' | 'unreadable'; message: string; error: ErrorRecord | null; retryAfterSeconds: number | null };

export function classifyInitiate(result: ClientResult): InitiateOutcome {
  switch (result.kind) {
    case 'success': {
      const tx = transactionOf(result.data);
      if (tx) return { kind: 'accepted', tx, httpStatus: result.httpStatus, message: result.message };
      return { kind: 'may-exist', cause: 'unreadable', message: 'the service answered success without a valid transaction', error: null, retryAfterSeconds: null };
    }
    case 'api-error': {
      const error: ErrorRecord = { code: result.code, message: result.message, httpStatus: result.httpStatus };
      if (result.httpStatus >= 500) {
        return { kind: 'may-exist', cause: 'server-error', message: `server error ${result.httpStatus} (${result.code}): it may have been created`, error, retryAfterSeconds: result.retryAfterSeconds };
      }
      if (result.httpStatus === 429) return { kind: 'retry-later', error, retryAfterSeconds: result.retryAfterSeconds };
      const fields = result.fields ? { fields: result.fields } : {};
      if (saysExternalIdTaken(result.httpStatus, result.code, result.fields ?? undefined)) return { kind: 'exists', error, ...fields };
      return { kind: 'refused', error, ...fields };
    }
    case 'bad-response':
      // A 5xx page from a proxy is unreadable too: the request may have reached the service.
      return { kind: 'may-exist', cause: 'unreadable', message: `unreadable answer (HTTP ${result.httpStatus}): ${result.message}`, error: null, retryAfterSeconds: null };
    case 'transport':
      return result.outcome === 'not-sent'
        ? { kind: 'not-sent', message: result.message }
        : { kind: 'may-exist', cause: 'no-answer', message: result.message, error: null, retryAfterSeconds: null };
    default: {
      const never: never = result;
      throw new Error(`unhandled client result ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Whether a 4xx refusal says the external id is already taken. The spec names no code for it;
 * the sandbox answers 422 VALIDATION_ERROR with `external_id: ["has already been used …"]`. A
 * field error on the external id that speaks of it being used/existing, a 409, or a code naming a
 * duplicate all count: the look-up that follows decides (found: adopted; not found: refused).
 */
export function saysExternalIdTaken(httpStatus: number, code: string, fields: FieldErrors | undefined): boolean {
  if (httpStatus === 409 || /DUPLICATE|ALREADY_EXISTS/i.test(code)) return true;
  const messages = fields?.['external_id'] ?? [];
  return messages.some((message) => /already|exists|used|duplicate/i.test(message));
}
