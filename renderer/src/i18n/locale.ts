/**
 * The locale numbers, money and dates are formatted in, apart from i18next: the first frame
 * (../firstFrame.ts) formats the Overview's figures before i18next and React are loaded (issue 28),
 * with the same formatters the screens use afterwards.
 */
import { localeFor, resolveLanguage, type Language } from '../../../shared/i18n/types';

export function systemTag(): string | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.language;
}

/** The language the window opens in: the system's, until app:info says what the user chose. */
export function systemLanguage(): Language {
  return resolveLanguage('system', systemTag());
}

let locale = localeFor(systemLanguage(), systemTag());

/** The locale tag numbers, money and dates are formatted in (e.g. `fr-CM`, `en-GB`). */
export function formatLocale(): string {
  return locale;
}

/** The language now in use changed (../i18n applyLanguage). */
export function setLocaleFor(language: Language): void {
  locale = localeFor(language, systemTag());
}
