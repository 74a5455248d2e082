/**
 * The console's languages and the shape every catalogue follows. A French catalogue is typed as
 * `Messages<typeof english>`, so a key missing from either side fails the typecheck.
 */
export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the user picks in Settings; `system` follows the operating system's language. */
export const LANGUAGE_PREFERENCES = ['system', ...LANGUAGES] as const;
export type LanguagePreference = (typeof LANGUAGE_PREFERENCES)[number];

/** Same keys as `T`, any string values: the type of a translation of catalogue `T`. */
export type Messages<T> = { readonly [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };

/** The console's language for a BCP 47 tag such as `fr-CM` (French), anything else English. */
export function languageFromTag(tag: string | null | undefined): Language {
  return typeof tag === 'string' && /^fr\b/i.test(tag) ? 'fr' : 'en';
}

export function resolveLanguage(preference: LanguagePreference, systemTag: string | null | undefined): Language {
  return preference === 'system' ? languageFromTag(systemTag) : preference;
}

/** The locale tag for numbers and dates: the system's own region when it speaks the same language. */
export function localeFor(language: Language, systemTag: string | null | undefined): string {
  if (typeof systemTag === 'string' && languageFromTag(systemTag) === language && /^[a-z]{2}-[A-Z]{2}$/.test(systemTag)) return systemTag;
  return language === 'fr' ? 'fr-CM' : 'en-GB';
}
