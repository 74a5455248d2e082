/** Small formatters the Overview's parts share: money of several currencies, percentages, day names. */
import type { CurrencyAmount } from '../../../shared/api';
import { formatMoney } from '../format/money';
import { formatLocale } from '../i18n';

/** "25,000 XAF", or "25,000 XAF + 12.50 USD" when a profile saw two currencies; zero in `fallback` when none. */
export function amountsText(amounts: readonly CurrencyAmount[], fallback: string): string {
  if (amounts.length === 0) return formatMoney(0, fallback);
  return amounts.map((item) => formatMoney(item.amount, item.currency)).join(' + ');
}

const percentFormats = new Map<string, Intl.NumberFormat>();
export function formatPercent(ratio: number, locale = formatLocale()): string {
  let format = percentFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
    percentFormats.set(locale, format);
  }
  return format.format(ratio);
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** "Mon 23 Nov" / "lun. 23 nov." for a local day's start; `short`: "Mon 23" for a chart's axis. */
export function formatDay(iso: string, short = false, locale = formatLocale()): string {
  const key = `${locale}|${short}`;
  let format = dayFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, short ? { weekday: 'short', day: 'numeric' } : { weekday: 'short', day: 'numeric', month: 'short' });
    dayFormats.set(key, format);
  }
  return format.format(new Date(iso));
}
