/**
 * Money as words, for both processes: an amount is an integer in the currency's smallest unit,
 * and only the words divide it by the minor unit (XAF has none). Main's English sentences use
 * `englishMoney` so a refusal reads "750,000 XAF", never "750000 XAF"; the screens format in the
 * reader's language (renderer/src/format/money.ts, built on `minorDigits`).
 */
const digitsCache = new Map<string, number>();

/** How many decimals the currency's smallest unit stands for (0 for XAF, 2 for EUR). */
export function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 0;
    } catch {
      digits = 0;
    }
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** "750,000 XAF"; "1,234.50 EUR" for 123450; without a currency, the integer grouped. */
export function englishMoney(amount: number, currency?: string | null): string {
  if (!currency) return new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(amount);
  const digits = minorDigits(currency);
  return `${new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits)} ${currency}`;
}

/** "1 approval", "2 approvals": an English count with its noun, never "approval(s)". */
export function englishCount(count: number, one: string, many: string): string {
  return `${new Intl.NumberFormat('en-US').format(count)} ${count === 1 ? one : many}`;
}
