/**
 * Turning the HTTP client's answers into journal records and handler failures.
 */
import { isFinalStatus } from '../../../shared/contract';
import type { JournalTransaction } from '../../../shared/api';
import type { ClientResult } from '../deps';
import type { ReadFailure } from '../storage/port';
import { HandlerFailure } from './context';

// In ../journal/rows.ts (beside ServiceTransaction): ../outcome.ts needs it without reaching the handlers' context.
export { readAnswer, transactionOf } from '../journal/rows';

export function isFinal(entry: JournalTransaction): boolean {
  return entry.status !== null && isFinalStatus(entry.status);
}

/**
 * A definite not-found answer of a retrieve (payment or payout): a 404 that carries the service's
 * own code. Only this lets an id be sent again; a timeout, a reset, a 5xx, an unreadable answer or a
 * 404 without that code (a proxy's HTML page) leaves the outcome unknown
 * (docs/decisions/look-up-not-found-only-404.md).
 */
export function isNotFound(result: ClientResult): boolean {
  return result.kind === 'api-error' && result.httpStatus === 404 && (result.code === 'PAYMENT_NOT_FOUND' || result.code === 'PAYOUT_NOT_FOUND');
}

/** A failed read as the timeline records it: an unreadable answer is an api_error coded BAD_RESPONSE. */
export function readFailureRecord(result: Exclude<ClientResult, { kind: 'success' }>): ReadFailure {
  switch (result.kind) {
    case 'api-error':
      return { kind: 'api-error', error: { code: result.code, message: result.message, httpStatus: result.httpStatus } };
    case 'bad-response':
      return { kind: 'api-error', error: { code: 'BAD_RESPONSE', message: result.message, httpStatus: result.httpStatus } };
    case 'transport':
      return { kind: 'transport', outcome: result.outcome, message: result.message };
    default: {
      const never: never = result;
      throw new Error(`unhandled client result ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The failure of a read (retrieve, verify, balance). Reads change nothing on the server, so a
 * transport failure of either outcome is reported as NOT_SENT: trying again is always safe.
 */
export function readFailure(result: Exclude<ClientResult, { kind: 'success' }>): HandlerFailure {
  switch (result.kind) {
    case 'api-error':
      return new HandlerFailure(result.code, result.message, result.fields ? { fields: result.fields } : {});
    case 'bad-response':
      return new HandlerFailure('BAD_RESPONSE', `The service answered something that is not a valid response: ${result.message}`);
    case 'transport':
      return new HandlerFailure('NOT_SENT', `The service could not be reached: ${result.message}. A lookup changes nothing; try again.`);
    default: {
      const never: never = result;
      throw new Error(`unhandled client result ${JSON.stringify(never)}`);
    }
  }
}
