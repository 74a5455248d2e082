/**
 * The renderer's one i18next instance. Screens read text with `useTranslation('<ns>')` and
 * `t('key.path')`; keys are typed from the English catalogue (see i18next.d.ts), so a key that
 * does not exist fails the typecheck. Numbers, money and dates follow the language through
 * `formatLocale()`, which the formatters in ../format read.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
// English only here: the French catalogue is its own chunk, loaded when French is in use (issue
// 28: both catalogues were ~30 % of the first chunk's script, evaluated on every start).
import { english } from '../../../shared/i18n/english';
import { resolveLanguage, type Language, type LanguagePreference } from '../../../shared/i18n/types';
import { setLocaleFor, systemTag } from './locale';

export { formatLocale, systemLanguage } from './locale';

export const i18n = i18next.createInstance();

let french: Promise<void> | null = null;
/** Adds the French catalogue (once; asked again after a failed fetch). */
function loadFrench(): Promise<void> {
  french ??= import('../../../shared/i18n/french').then(
    ({ french: catalogue }) => {
      for (const [namespace, messages] of Object.entries(catalogue)) i18n.addResourceBundle('fr', namespace, messages, true, true);
    },
    (error: unknown) => {
      french = null;
      throw error;
    },
  );
  return french;
}

/**
 * Resolves when the system's language can be drawn: at once in English, after the French
 * catalogue has arrived in French (main.tsx draws nothing before, so French never flashes English).
 */
export const languageReady: Promise<void> = resolveLanguage('system', systemTag()) === 'fr' ? loadFrench().catch(() => undefined) : Promise.resolve();

void i18n.use(initReactI18next).init({
  resources: { en: english },
  partialBundledLanguages: true,
  lng: resolveLanguage('system', systemTag()),
  fallbackLng: 'en',
  supportedLngs: ['en', 'fr'],
  ns: Object.keys(english),
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
});

export function currentLanguage(): Language {
  return i18n.language === 'fr' ? 'fr' : 'en';
}

/** Applies the user's choice (or the system's language); resolves to the language now in use. */
export async function applyLanguage(preference: LanguagePreference): Promise<Language> {
  const language = resolveLanguage(preference, systemTag());
  if (language === 'fr') {
    try {
      await loadFrench();
    } catch {
      // The host could not send the catalogue (it stopped): the window stays in its language.
      return currentLanguage();
    }
  }
  setLocaleFor(language);
  if (i18n.language !== language) await i18n.changeLanguage(language);
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  return language;
}

export const t = i18n.t.bind(i18n);
