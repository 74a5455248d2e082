/**
 * Turning the HTTP client's answers into journal records and handler failures.
 */
import { isFinalStatus } from '../../../shared/contract';
import type { JournalTransaction } from '../../../shared/api';
import type { ClientResult } from '../deps';
import { HandlerFailure } from './context';

// In ../journal/rows.ts (beside ServiceTransaction): ../outcome.ts needs it without reaching the handlers' context.
export { readAnswer, transactionOf } from '../journal/rows';

export function isFinal(entry: JournalTransaction): boolean {
  return entry.status !== null && isFinalStatus(entry.status);
}

/** A not-found answer of a retrieve (payment or payout). */
export function isNotFound(result: ClientResult): boolean {
  return result.kind === 'api-error' && (result.code === 'PAYMENT_NOT_FOUND' || result.code === 'PAYOUT_NOT_FOUND');
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
