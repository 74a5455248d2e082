/**
 * An adopted payout that is not what was asked (issue 23, review): the service refused a request
 * because its external id was already used, and the console adopted the transaction it holds
 * under that id. When that transaction went to another recipient, or for another amount or
 * currency, the request was NOT paid: the user must be told, never shown "paid" alone. Nothing is
 * sent to "fix" it (that would be paying twice); this only says so. Computed at read time from
 * what the journal holds: the request as sent and the service's transaction as last read.
 */

/**
 * The currency every request of the console is written with (a request carries no currency; the
 * service's is the one seen): what an adopted request asked is in it.
 */
export const REQUEST_CURRENCY = 'XAF';

/** What an adopted request asked against what the service's transaction under its id holds. */
export interface AdoptedDifference {
  asked: { phoneNumber: string; amount: number; currency: string };
  /** `accountNumber` as the service returns it (partly masked, `+2376****0001`). */
  found: { accountNumber: string; amount: number; currency: string };
  /** Which of them differ (at least one). */
  differs: ('recipient' | 'amount')[];
}

/**
 * Whether a phone number typed by the merchant is the service's (partly masked) account number:
 * same length, and every character the mask shows is the same (spaces ignored on both sides).
 */
export function phoneMatchesAccount(phoneNumber: string, accountNumber: string): boolean {
  const phone = phoneNumber.replace(/\s/g, '');
  const account = accountNumber.replace(/\s/g, '');
  if (phone.length !== account.length) return false;
  for (let index = 0; index < phone.length; index += 1) {
    const shown = account[index]!;
    if (shown !== '*' && shown !== phone[index]) return false;
  }
  return true;
}

/**
 * The difference between what was asked and the transaction adopted under the same external id;
 * null when they agree (the same payout sent again) or when either side is not known.
 */
export function adoptedDifference(
  asked: { phone_number: string; amount: number } | null,
  askedCurrency: string,
  found: { account_number: string | null; amount: number; currency: string } | null,
): AdoptedDifference | null {
  if (!asked || !found) return null;
  // Read from stored JSON: a field the service left out is not compared (it cannot be said to differ).
  const differs: AdoptedDifference['differs'] = [];
  if (typeof found.account_number === 'string' && !phoneMatchesAccount(asked.phone_number, found.account_number)) differs.push('recipient');
  if (typeof found.amount === 'number' && (asked.amount !== found.amount || (typeof found.currency === 'string' && askedCurrency !== found.currency))) differs.push('amount');
  if (differs.length === 0) return null;
  return {
    asked: { phoneNumber: asked.phone_number, amount: asked.amount, currency: askedCurrency },
    // An account number the service left out is shown as a dash, never as another person's.
    found: { accountNumber: found.account_number ?? '—', amount: found.amount, currency: found.currency },
    differs,
  };
}
