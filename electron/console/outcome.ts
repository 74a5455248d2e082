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
 *   anything is sent again. A success whose data lacks what decides money (no transaction_id, no
 *   status, an amount that is not a whole number, another payout's external id) is such an
 *   unreadable answer: the message names what is missing and carries the answer as received
 *   (docs/decisions/tolerant-reader.md).
 */
import { matchesExternalId, rawAnswerText, readServiceTransaction, type FieldErrors, type TransactionRequest } from '../../shared/contract';
import { REQUEST_CURRENCY } from '../../shared/api/adopted';
import type { ClientResult } from './deps';
import type { ErrorRecord } from './journal/phase';
import type { ServiceTransaction } from './journal/rows';

export type InitiateOutcome =
  | { kind: 'accepted'; tx: ServiceTransaction; httpStatus: number; message: string | null }
  | { kind: 'refused'; error: ErrorRecord; fields?: FieldErrors }
  | { kind: 'exists'; error: ErrorRecord; fields?: FieldErrors }
  | { kind: 'retry-later'; error: ErrorRecord; retryAfterSeconds: number | null }
  | { kind: 'not-sent'; message: string }
  | { kind: 'may-exist'; cause: 'server-error' | 'no-answer' | 'unreadable'; message: string; error: ErrorRecord | null; retryAfterSeconds: number | null };

export function classifyInitiate(result: ClientResult, sent?: Pick<TransactionRequest, 'external_id' | 'amount'>): InitiateOutcome {
  switch (result.kind) {
    case 'success':
      return readAccepted(result, sent);
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
      return {
        kind: 'may-exist',
        cause: 'unreadable',
        message: `unreadable answer (HTTP ${result.httpStatus}): ${result.message}${'answer' in result ? `; the answer as received: ${rawAnswerText(result.answer)}` : ''}`,
        error: null,
        retryAfterSeconds: null,
      };
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
 * A success answer to an initiate: accepted when what decides money is readable and names this
 * request (its external id, or none); else unreadable, the entry outcome unknown and looked up.
 * An amount or currency other than the request's is still the service's transaction for this
 * request: accepted, the service's figures recorded, and the difference said in the timeline.
 */
function readAccepted(result: Extract<ClientResult, { kind: 'success' }>, sent: Pick<TransactionRequest, 'external_id' | 'amount'> | undefined): InitiateOutcome {
  const unreadable = (why: string): InitiateOutcome => ({
    kind: 'may-exist',
    cause: 'unreadable',
    message: `the service answered success (HTTP ${result.httpStatus}), but ${why}; the answer as received: ${rawAnswerText(result.data)}`,
    error: null,
    retryAfterSeconds: null,
  });
  const read = readServiceTransaction(result.data);
  if (!read.ok) return unreadable(read.missing);
  const { tx } = read;
  if (!matchesExternalId(tx, sent?.external_id)) return unreadable(`the answer names external id ${tx.external_id}, not ${sent?.external_id}: it is not this request's answer`);
  const differs = sent !== undefined && (tx.amount !== sent.amount || tx.currency !== REQUEST_CURRENCY);
  const message = differs ? `${result.message ?? 'accepted'} (the service's answer says ${tx.amount} ${tx.currency}; the request asked ${sent.amount} ${REQUEST_CURRENCY})` : result.message;
  return { kind: 'accepted', tx, httpStatus: result.httpStatus, message };
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
