/** Times in the user's own time zone, with the zone named so that nobody has to guess, in the console's language. */
import { formatLocale } from '../i18n/locale';

const formats = new Map<string, Intl.DateTimeFormat>();
function dateTimeFormat(locale: string): Intl.DateTimeFormat {
  let format = formats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'short',
    });
    formats.set(locale, format);
  }
  return format;
}

export function formatDateTime(iso: string | null | undefined, locale = formatLocale()): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat(locale).format(date);
}

/** The time of day only (`14:05:30 UTC`), for a moment within the next minutes (the end of a wait). */
export function formatClockTime(iso: string, locale = formatLocale()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' }).format(date);
}

/** `YYYY-MM-DD` from a date input, as the start (or end) of that day in the user's time zone. */
export function dayBoundIso(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = end ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d, 0, 0, 0, 0);
  return date.toISOString();
}
