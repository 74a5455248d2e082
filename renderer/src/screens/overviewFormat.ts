/** Small formatters the Overview's parts share: money of several currencies, percentages, day names. */
import type { CurrencyAmount } from '../../../shared/api';
import { formatMoney } from '../format/money';
import { formatLocale } from '../i18n/locale';

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

/**
 * A chart label's width in px, estimated from its characters (no layout in the renderer's tests,
 * and a canvas measure would need the page's font loaded). Deliberately generous: capitals, digits
 * and wide letters count as 0.7 em, the rest as 0.58 em, so a label never comes out wider than this.
 */
export function labelWidth(label: string, fontPx = 12): number {
  let em = 0;
  for (const char of label) em += /[A-Z0-9MWmw@%]/.test(char) ? 0.7 : 0.58;
  return Math.ceil(em * fontPx);
}

/** Room the tick line and gap take between an axis label and the plot. */
const AXIS_GAP = 12;

/**
 * The width an axis needs so its longest label shows whole (failure codes such as
 * PROVIDER_INTERNAL_PROCESSING_ERROR, French names), between `min` and `max`: past `max` the bars
 * would have no room, so the label is shortened instead (see `fitLabel`).
 */
export function labelAxisWidth(labels: readonly string[], { min = 32, max = 300, fontPx = 12 } = {}): number {
  const widest = labels.reduce((w, label) => Math.max(w, labelWidth(label, fontPx)), 0);
  return Math.min(max, Math.max(min, widest + AXIS_GAP));
}

/** The label as it fits an axis `axisWidth` wide: whole, or cut with "…" (the tooltip and the table beside show it whole). */
export function fitLabel(label: string, axisWidth: number, fontPx = 12): string {
  const room = axisWidth - AXIS_GAP;
  if (labelWidth(label, fontPx) <= room) return label;
  const chars = [...label];
  while (chars.length > 1 && labelWidth(`${chars.join('')}…`, fontPx) > room) chars.pop();
  return `${chars.join('')}…`;
}
