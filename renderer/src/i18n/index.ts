/**
 * The renderer's one i18next instance. Screens read text with `useTranslation('<ns>')` and
 * `t('key.path')`; keys are typed from the English catalogue (see i18next.d.ts), so a key that
 * does not exist fails the typecheck. Numbers, money and dates follow the language through
 * `formatLocale()`, which the formatters in ../format read.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { english, localeFor, resources, type Language, type LanguagePreference, resolveLanguage } from '../../../shared/i18n';

function systemTag(): string | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.language;
}

export const i18n = i18next.createInstance();
let locale = localeFor(resolveLanguage('system', systemTag()), systemTag());

void i18n.use(initReactI18next).init({
  resources,
  lng: resolveLanguage('system', systemTag()),
  fallbackLng: 'en',
  supportedLngs: ['en', 'fr'],
  ns: Object.keys(english),
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
});

/** The locale tag numbers, money and dates are formatted in (e.g. `fr-CM`, `en-GB`). */
export function formatLocale(): string {
  return locale;
}

export function currentLanguage(): Language {
  return i18n.language === 'fr' ? 'fr' : 'en';
}

/** Applies the user's choice (or the system's language); resolves to the language now in use. */
export async function applyLanguage(preference: LanguagePreference): Promise<Language> {
  const language = resolveLanguage(preference, systemTag());
  locale = localeFor(language, systemTag());
  if (i18n.language !== language) await i18n.changeLanguage(language);
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  return language;
}

/** The system language's name, for the "System language (…)" choice. */
export function systemLanguage(): Language {
  return resolveLanguage('system', systemTag());
}

export const t = i18n.t.bind(i18n);
