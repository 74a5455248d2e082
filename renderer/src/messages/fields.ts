/**
 * Field errors in the console's language. The shared zod schemas, main and the API answer field
 * errors in English (shared/contract/schemas.ts, shared/api/channels.ts, zod's defaults); this is
 * the one place that maps each known message to a catalogue key (namespace `fields`). In English
 * the message is shown as it came (the catalogue's English repeats the schemas' words); in French
 * a message nobody listed shows as "n’est pas valide" rather than in English.
 */
import type enFields from '../../../shared/i18n/en/fields';
import { currencyLabel } from '../format/money';
import { currentLanguage, t } from '../i18n';

type FieldKey = keyof typeof enFields;

/** English message pattern -> key, with its captures as named parameters. */
const PATTERNS: MessagePatterns<FieldKey> = [
  [/^is required$/, 'required', []],
  [/^must be a string$/, 'string', []],
  [/^must be a number$/, 'number', []],
  [/^must be a whole number in the smallest currency unit$/, 'wholeSmallest', []],
  // batch cells (shared/batch/validate.ts)
  [/^must be a whole number in the smallest currency unit \(no decimals\)$/, 'noDecimals', []],
  [/^is required: add a payment_method column or choose a method for the batch$/, 'methodRequired', []],
  [/^was turned into a number by a spreadsheet/, 'spreadsheetPhone', []],
  [/^is the same as row (\d+): the service accepts an external id once$/, 'sameExternalId', ['row']],
  [/^has (\d+) cells where the header has (\d+)$/, 'cellCount', ['cells', 'header']],
  [/^must be a whole number$/, 'whole', []],
  [/^must be greater than 0$/, 'positive', []],
  [/^must be at most (\d+)$/, 'atMost', ['max']],
  [/^must be at most (\d+) characters$/, 'maxChars', ['max']],
  [/^must be at least (\d+) characters$/, 'minChars', ['min']],
  [/^must be at most (\d+) bytes as JSON$/, 'maxBytes', ['max']],
  [/^must be \+ followed by the country code and number/, 'phone', []],
  [/^must be a valid email address$/, 'email', []],
  [/^must not be empty$/, 'notEmpty', []],
  [/^may contain only letters, digits and \. _ : -$/, 'externalIdChars', []],
  [/^must be an ISO 8601 UTC timestamp/, 'timestamp', []],
  [/^is not a known field$/, 'unknownField', []],
  [/^must be a whole number of (\S+) \(it has no smaller unit\)$/, 'wholeCurrency', ['currency']],
  [/^must be a number with at most (\d+) decimals$/, 'decimals', ['digits']],
  [/^is too large$/, 'tooLarge', []],
  [/^every value needs a key$/, 'metadataKey', []],
  [/^key "(.*)" is used twice$/, 'metadataTwice', ['key']],
  [/^must be an http\(s\) URL$/, 'httpUrl', []],
  [/^letters and digits only, 1 to 32$/, 'headerWord', []],
  [/^must not be 0$/, 'notZero', []],
  [/^must differ from the payment key/, 'differentKeys', []],
  [/^is required for a live payout$/, 'typedAmountRequired', []],
  [/^looks too short for a secret key$/, 'secretTooShort', []],
  [/^does not match the amount$/, 'typedAmountMismatch', []],
  [/^does not match the payout amount$/, 'typedPayoutMismatch', []],
  // The CSV reader's (shared/csv/read.ts), for both importers.
  [/^the file is (UTF-16(?: LE| BE)?) text, not UTF-8/, 'fileEncoding', ['encoding']],
  // zod's own defaults, for schemas that set no message
  [/^Invalid input: expected \w+, received undefined$/, 'required', []],
  [/^Invalid input: expected number, received \w+$/, 'number', []],
  [/^Invalid input: expected int, received \w+$/, 'whole', []],
  [/^Invalid input: expected string, received \w+$/, 'string', []],
  [/^Too big: expected string to have <=(\d+) characters$/, 'maxChars', ['max']],
  [/^Too small: expected string to have >=1 characters$/, 'required', []],
  [/^Too small: expected string to have >=(\d+) characters$/, 'minChars', ['min']],
  [/^Too big: expected number to be <=(\d+)$/, 'atMost', ['max']],
  [/^Too small: expected number to be >=(-?\d+)$/, 'atLeast', ['min']],
  [/^Invalid ISO datetime$/, 'dateTime', []],
  [/^Invalid URL$/, 'url', []],
  [/^Invalid option: expected one of/, 'invalidChoice', []],
  // a workspace's database and login (shared/api/workspace.ts)
  [/^Use only letters, digits, _, \$ and -, starting with a letter or _, at most 63 characters\.$/, 'workspaceIdentifier', []],
];

/** An English sentence matched against a table of (pattern, catalogue key, names of its captures). */
export type MessagePatterns<K extends string> = readonly (readonly [RegExp, K, readonly string[]])[];

/** The first pattern that matches, as its catalogue key and named captures; null when none does. */
export function matchMessage<K extends string>(patterns: MessagePatterns<K>, message: string): { key: K; params: Record<string, string> } | null {
  for (const [pattern, key, names] of patterns) {
    const match = pattern.exec(message);
    if (!match) continue;
    const params: Record<string, string> = {};
    names.forEach((name, index) => (params[name] = match[index + 1] ?? ''));
    return { key, params };
  }
  return null;
}

/** The catalogue key and parameters of an English field message, or null when it is not a known one. */
export function fieldMessageKey(message: string): { key: FieldKey; params: Record<string, string> } | null {
  return matchMessage(PATTERNS, message);
}

/** One field error in the console's language. */
export function translateFieldError(message: string): string {
  if (currentLanguage() === 'en') return message;
  const known = fieldMessageKey(message);
  // The key is typed (FieldKey); the parameters are the pattern's captures, checked by test/renderer/fields.test.ts.
  const translate = t as unknown as (key: `fields:${FieldKey}`, params?: Record<string, string>) => string;
  if (!known) return t('fields:invalid');
  const params = known.params.currency ? { ...known.params, currency: currencyLabel(known.params.currency) } : known.params;
  return translate(`fields:${known.key}`, params);
}

export function translateFieldErrors(messages: readonly string[] | undefined): string[] {
  return (messages ?? []).map(translateFieldError);
}
