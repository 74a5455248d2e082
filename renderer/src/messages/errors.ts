/**
 * One table of human messages for every error code the console can meet: the API's codes
 * (shared/contract ERROR_CODES), the console's own (CONSOLE_ERROR_CODES), this page's link to
 * its host, the team workspace's faults, and the transactions' `failed_code` sentences. Finance staff read these, so each
 * says what happened and what to do next.
 */
// The zod-free modules, not shared/api's index (which builds every schema at import): this module
// is in the first screen's script, and zod was back in it through this line (issue 28).
import type { ConsoleErrorCode, ApiFailure, WorkspaceFaultCode, ApprovalErrorCode } from '../../../shared/api';
import { BATCH_STATES, type BatchState } from '../../../shared/api/batch';
import { BATCH_REFUSALS } from '../../../shared/api/refusals';
import type { ErrorCode, FailedCode } from '../../../shared/contract';
import { english } from '../../../shared/i18n/english';
import { currentLanguage, t } from '../i18n';
import { matchMessage, type MessagePatterns } from './fields';

/** Failures of this page's link to the browser host (not codes of the API or of main). */
export const HOST_ERROR_CODES = ['HOST_UNREACHABLE', 'HOST_TOKEN_MISSING'] as const;
export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

export interface HumanMessage {
  /** What happened, in one sentence. */
  title: string;
  /** What to do next. */
  next: string;
}

/** The English table (the catalogue `errors`), typed so that every code has its message. */
export const ERROR_MESSAGES: Record<ErrorCode | ConsoleErrorCode | HostErrorCode | WorkspaceFaultCode | ApprovalErrorCode, HumanMessage> = english.errors;

export const FAILED_MESSAGES: Record<FailedCode, string> = english.failed;

/** The human message of a failure; unknown codes keep the server's own message. */
export function describeFailure(failure: ApiFailure): HumanMessage {
  // A batch action refused with its reason: the reason is the sentence, the code's own says what to do.
  if (failure.reason && (BATCH_REFUSALS as readonly string[]).includes(failure.reason.key)) {
    const { key, params } = failure.reason;
    const state = typeof params.state === 'string' && (BATCH_STATES as readonly string[]).includes(params.state) ? t(`batch:state.${params.state as BatchState}`) : params.state;
    const next = Object.hasOwn(ERROR_MESSAGES, failure.code) ? t(`errors:${failure.code as keyof typeof ERROR_MESSAGES}.next`) : t('common:unknownFailure.next');
    // The parameters are main's (checked by key above), not known to the catalogue's types.
    const words: Record<string, string | number> = { ...params, ...(state === undefined ? {} : { state }) };
    return { title: (t as (key: string, options: Record<string, string | number>) => string)(`batch:refusal.${key}`, words), next };
  }
  if (Object.hasOwn(ERROR_MESSAGES, failure.code)) {
    const code = failure.code as keyof typeof ERROR_MESSAGES;
    return { title: t(`errors:${code}.title`), next: t(`errors:${code}.next`) };
  }
  // An unknown code: its own (English) message is the title for English readers; French readers get a
  // French title, and ErrorNotice shows the English message under it as details.
  const title = failure.message && currentLanguage() === 'en' ? failure.message : t('common:unknownFailure.title');
  return { title, next: t('common:unknownFailure.next') };
}

/**
 * The service's own English sentences the console knows, said in the catalogue's words: a refusal
 * more precise than its code (a VALIDATION_ERROR that is a repeated external id).
 */
const SERVICE_MESSAGES: MessagePatterns<'duplicateExternalId'> = [[/^A (payment|payout) with this external_id already exists\.?$/, 'duplicateExternalId', ['kind']]];

/** A refusal's sentence in the user's language: a known message, else its code's title (describeFailure). */
export function describeServiceError(error: { code: string; message: string | null }): string {
  const known = matchMessage(SERVICE_MESSAGES, error.message ?? '');
  if (known) return t(`common:serviceMessage.${known.key}_${known.params.kind as 'payment' | 'payout'}`);
  return describeFailure({ code: error.code, message: error.message ?? '' }).title;
}

export function describeFailedCode(code: string | null, kind: 'payment' | 'payout' = 'payment'): string | null {
  if (!code) return null;
  // A payout's reasons speak of its recipient (transaction:payoutFailed), a payment's of its payer.
  if (kind === 'payout' && Object.hasOwn(FAILED_MESSAGES, code)) return t(`transaction:payoutFailed.${code as FailedCode}`);
  if (Object.hasOwn(FAILED_MESSAGES, code)) return t(`failed:${code as FailedCode}`);
  return t('common:failedWithCode', { code });
}

/** Letters and digits only, lower case: two sentences differing in quotes, apostrophes or spaces read the same. */
const bare = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * What a failure's own message says beyond the sentences already on screen (its title, what to do
 * next, the screen's title), or null when it only repeats them: main often sends the code's title
 * and next step as its message (a workspace fault does), and "Details:" then read the title again.
 */
export function messageBeyond(message: string | null | undefined, shown: readonly (string | null | undefined)[]): string | null {
  if (!message?.trim()) return null;
  const said = shown.filter((text): text is string => Boolean(text?.trim()));
  let rest = message;
  for (const sentence of said) rest = rest.split(sentence).join(' ');
  const left = bare(rest);
  if (left === '' || said.some((sentence) => bare(sentence).includes(left)) || bare(said.join(' ')).includes(bare(message))) return null;
  return rest === message ? message : rest.trim();
}
