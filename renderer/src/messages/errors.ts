/**
 * One table of human messages for every error code the console can meet: the API's codes
 * (shared/contract ERROR_CODES), the console's own (CONSOLE_ERROR_CODES), this page's link to
 * its host, and the transactions' `failed_code` sentences. Finance staff read these, so each
 * says what happened and what to do next.
 */
import type { ConsoleErrorCode, ApiFailure } from '../../../shared/api';
import type { ErrorCode, FailedCode } from '../../../shared/contract';

/** Failures of this page's link to the browser host (not codes of the API or of main). */
export const HOST_ERROR_CODES = ['HOST_UNREACHABLE', 'HOST_TOKEN_MISSING'] as const;
export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

export interface HumanMessage {
  /** What happened, in one sentence. */
  title: string;
  /** What to do next. */
  next: string;
}

export const ERROR_MESSAGES: Record<ErrorCode | ConsoleErrorCode | HostErrorCode, HumanMessage> = {
  AUTHENTICATION_HEADERS_REQUIRED: { title: 'The service did not receive the authentication headers.', next: 'Check the profile’s header word in Settings; it must match what the service expects.' },
  INVALID_TIMESTAMP: { title: 'The service refused the request’s timestamp.', next: 'Check this computer’s clock, then try again.' },
  INVALID_ENVIRONMENT: { title: 'The service does not know this environment.', next: 'Set the profile’s environment to sandbox or live in Settings.' },
  TIMESTAMP_EXPIRED: { title: 'This computer’s clock is more than 5 minutes away from the service’s.', next: 'Set the clock automatically from the network, then try again.' },
  INVALID_API_KEY: { title: 'The service does not accept this public key for this operation.', next: 'Check in Settings that the payment key and the payout key are in the right fields and still active.' },
  API_KEY_ENV_MISMATCH: { title: 'The key belongs to the other environment.', next: 'Use sandbox keys with a sandbox profile and live keys with a live profile.' },
  INVALID_DIGITAL_SIGNATURE: { title: 'The service says the request’s signature is wrong.', next: 'The stored secret key does not match the public key: replace the secret in Settings.' },
  FORBIDDEN: { title: 'The service refuses requests from this computer’s IP address.', next: 'Add this IP address to the key’s whitelist in the service’s dashboard.' },
  APPLICATION_NOT_ACTIVE: { title: 'The application is not activated yet.', next: 'Activate it in the service’s dashboard, or ask your administrator.' },
  APP_NOT_ACTIVE: { title: 'The application tied to this key is inactive.', next: 'Reactivate it in the service’s dashboard, or ask your administrator.' },
  LIVE_MODE_NOT_ENABLED: { title: 'This application is not approved for live transactions yet.', next: 'Nothing was sent. Ask the service to approve live mode, or use a sandbox profile meanwhile.' },
  ENVIRONMENT_CONTEXT_NOT_SET: { title: 'The service had an internal problem with the environment.', next: 'Try again in a moment; if it persists, contact the service’s support.' },
  PAYMENT_NOT_FOUND: { title: 'No payment with this id exists in this environment.', next: 'Check the id and the active profile’s environment.' },
  PAYMENT_METHOD_NOT_ENABLED: { title: 'This payment method is disabled.', next: 'Choose another method.' },
  PAYMENT_METHOD_NOT_SUPPORTED: { title: 'This method does not exist or does not take payments.', next: 'Choose another method.' },
  APP_PAYMENT_METHOD_NOT_ENABLED: { title: 'This method is not enabled for payments in your application.', next: 'Enable it in the service’s dashboard, or choose another method.' },
  PAYOUT_NOT_FOUND: { title: 'No payout with this id exists in this environment.', next: 'Check the id and the active profile’s environment.' },
  INSUFFICIENT_FUNDS: { title: 'The wallet balance does not cover the amount plus the fee.', next: 'Nothing was sent. Top up the wallet or send a smaller amount, then try again.' },
  PAYOUT_NOT_AVAILABLE: { title: 'Payouts are not available for this method or recipient.', next: 'Try another method or recipient, or try again later.' },
  PAYOUT_METHOD_NOT_SUPPORTED: { title: 'This method does not exist or does not send payouts.', next: 'Choose another method.' },
  APP_PAYOUT_METHOD_NOT_ENABLED: { title: 'This method is not enabled for payouts in your application.', next: 'Enable it in the service’s dashboard, or choose another method.' },
  PAYOUT_METHOD_NOT_ENABLED: { title: 'This payout method is disabled.', next: 'Choose another method.' },
  PAYLOAD_TOO_LARGE: { title: 'The request is too large for the service.', next: 'Shorten the description or the metadata.' },
  VALIDATION_ERROR: { title: 'The service found problems in some fields.', next: 'Correct the fields marked below, then send again.' },
  MALFORMED_REQUEST: { title: 'The service could not read the request.', next: 'Check the fields, then try again; if it persists, report it.' },
  UNSUPPORTED_MEDIA_TYPE: { title: 'The service could not read the request’s format.', next: 'Report this to your administrator: the console sent an unexpected content type.' },
  ROUTE_NOT_FOUND: { title: 'The service has no such endpoint.', next: 'Check the profile’s base URL in Settings (it usually ends before /v1).' },
  RATE_LIMIT_EXCEEDED: { title: 'Too many requests in a short time.', next: 'Wait a little, then try again.' },
  MAINTENANCE_MODE: { title: 'The service is offline for maintenance.', next: 'Try again later; nothing was sent.' },
  INTERNAL_ERROR: { title: 'The service had an unexpected error.', next: 'Check History before sending again, then try again later.' },
  INVALID_INPUT: { title: 'Some fields are not valid.', next: 'Correct the fields marked below.' },
  OUTCOME_UNKNOWN: { title: 'The request may have reached the service, but no answer came back.', next: 'Do not send it again blindly: look it up first, from its timeline.' },
  NOT_SENT: { title: 'The request could not be sent (no connection to the service).', next: 'Nothing reached the service. Check the network and the base URL, then try again.' },
  BAD_RESPONSE: { title: 'The service answered something the console cannot read.', next: 'Check the profile’s base URL; look the transaction up before sending again.' },
  NO_KEYCHAIN: { title: 'No keychain is available on this computer.', next: 'Install or unlock the system keychain, then try again.' },
  SECRET_MISSING: { title: 'This profile has no secret key in the keychain.', next: 'Enter the secret key in Settings.' },
  CONFIRMATION_REQUIRED: { title: 'This payout needs its confirmation step.', next: 'Review the payout again and confirm it.' },
  LIVE_REFUSED: { title: 'Live profiles are switched off in this browser session.', next: 'Restart the browser host with --allow-live, or use the desktop app.' },
  NOT_FOUND: { title: 'This item no longer exists.', next: 'Reload the list.' },
  CONFLICT: { title: 'That action does not fit this transaction’s state.', next: 'Reload the transaction and follow the steps it shows.' },
  SANDBOX_UNAVAILABLE: { title: 'Sandbox controls work only with the Local sandbox profile.', next: 'Switch to the Local sandbox profile in Settings.' },
  INTERNAL: { title: 'The console had an unexpected error.', next: 'Try again; if it persists, restart the console.' },
  HOST_UNREACHABLE: { title: 'This page lost its connection to the console host.', next: 'Check that the console is still running, then reload the page. Look transactions up before sending again.' },
  HOST_TOKEN_MISSING: { title: 'This page has no valid access token for the console host.', next: 'Open the exact URL the console printed when it started.' },
};

export const FAILED_MESSAGES: Record<FailedCode, string> = {
  PAYER_NOT_FOUND: 'The customer’s mobile-money account was not found.',
  NOT_ENOUGH_FUNDS: 'The customer did not have enough money in their account.',
  EXPIRED: 'The customer did not answer the prompt in time.',
  TRANASACTION_CANCELLED: 'The customer declined the prompt on their phone.',
  SERVICE_UNAVAILABLE: 'The mobile-money operator’s service was unavailable.',
  PROVIDER_INTERNAL_PROCESSING_ERROR: 'The mobile-money operator had an internal error.',
};

/** The human message of a failure; unknown codes keep the server's own message. */
export function describeFailure(failure: ApiFailure): HumanMessage {
  const known = (ERROR_MESSAGES as Record<string, HumanMessage | undefined>)[failure.code];
  return known ?? { title: failure.message || 'Something went wrong.', next: 'Try again; if it persists, report the code below.' };
}

export function describeFailedCode(code: string | null): string | null {
  if (!code) return null;
  return (FAILED_MESSAGES as Record<string, string | undefined>)[code] ?? `Failed with code ${code}.`;
}
