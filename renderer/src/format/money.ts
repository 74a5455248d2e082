/**
 * Money on screen: amounts are integers in the smallest unit everywhere; only the display divides
 * by the currency's minor unit (XAF has none, so 25000 shows as "25,000 XAF" in English and
 * "25 000 FCFA" in French, the name French-speaking users expect).
 */
import { formatLocale } from '../i18n/locale';

import { minorDigits } from '../../../shared/money';

export { minorDigits };

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(locale: string, digits: number, currency?: string): Intl.NumberFormat {
  const key = `${locale}|${digits}|${currency ?? ''}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, currency ? { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits } : { minimumFractionDigits: digits, maximumFractionDigits: digits });
    numberFormats.set(key, format);
  }
  return format;
}

/** "25,000" (English) or "25 000" (French) for 25000 XAF; "1,234.50" for 123450 USD. */
export function formatNumber(amount: number, currency: string, locale = formatLocale()): string {
  const digits = minorDigits(currency);
  return numberFormat(locale, digits).format(amount / 10 ** digits);
}

/** A count ("1,000" / "1 000"). */
export function formatCount(count: number, locale = formatLocale()): string {
  return numberFormat(locale, 0).format(count);
}

/** "25,000 XAF" in English; in French the currency's French name, "25 000 FCFA". */
export function formatMoney(amount: number | null | undefined, currency: string, locale = formatLocale()): string {
  if (amount === null || amount === undefined) return '—';
  if (locale.startsWith('fr')) {
    try {
      return numberFormat(locale, minorDigits(currency), currency).format(amount / 10 ** minorDigits(currency));
    } catch {
      // an unknown currency code: number and code, as in English
    }
  }
  return `${formatNumber(amount, currency, locale)} ${currency}`;
}

/**
 * The currency's name for labels such as "Amount (…)": the code in English (`XAF`), the name
 * French readers use in French (`FCFA`); an unknown code stays a code.
 */
export function currencyLabel(currency: string, locale = formatLocale()): string {
  if (!locale.startsWith('fr')) return currency;
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).formatToParts(0).find((part) => part.type === 'currency')?.value ?? currency;
  } catch {
    return currency;
  }
}

/**
 * The integer in the smallest unit for what a person typed ("25 000", "25,000", "1,234.5"), or
 * an error sentence. Commas and spaces are thousands separators; a dot is the decimal point.
 */
export function parseAmount(text: string, currency: string): { amount: number } | { error: string } {
  const cleaned = text.replace(/[\s,\u00a0\u202f']/g, '');
  if (cleaned === '') return { error: 'is required' };
  const digits = minorDigits(currency);
  // A minus sign is a sign, not a stray character: the amount must be positive (the schema's words).
  if (/^-\d/.test(cleaned)) return { error: 'must be greater than 0' };
  const pattern = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${digits}})?$`);
  if (!pattern.test(cleaned)) {
    return { error: digits === 0 ? `must be a whole number of ${currency} (it has no smaller unit)` : `must be a number with at most ${digits} decimals` };
  }
  const [whole = '0', fraction = ''] = cleaned.split('.');
  const amount = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (!Number.isSafeInteger(amount)) return { error: 'is too large' };
  return { amount };
}
