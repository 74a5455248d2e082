import { describe, expect, it } from 'vitest';
import { english, languageFromTag, localeFor, resources, resolveLanguage } from '../../shared/i18n';
import { currencyLabel, formatMoney } from '../../renderer/src/format/money';
import { formatDateTime } from '../../renderer/src/format/time';

/** Every leaf of a catalogue as `path -> text`. */
function leaves(node: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [p, v] of leaves(value, path)) out.set(p, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((m) => m[1]).sort();

describe('catalogues', () => {
  const en = leaves(resources.en);
  const fr = leaves(resources.fr);

  it('has the same keys in English and French', () => {
    expect([...fr.keys()].filter((k) => !en.has(k))).toEqual([]);
    expect([...en.keys()].filter((k) => !fr.has(k))).toEqual([]);
    expect(en.size).toBeGreaterThan(50);
  });

  it('uses the same {{placeholders}} in both languages', () => {
    const differing = [...en].filter(([key, text]) => placeholders(text).join() !== placeholders(fr.get(key) ?? '').join()).map(([key]) => key);
    expect(differing).toEqual([]);
  });

  it('has no empty text, and French text is not a copy of the English one (except names and codes)', () => {
    expect([...en, ...fr].filter(([, text]) => text.trim() === '').map(([key]) => key)).toEqual([]);
    const copies = [...en].filter(([key, text]) => /[a-z]{4,} [a-z]{4,}/i.test(text) && fr.get(key) === text).map(([key]) => key);
    expect(copies).toEqual([]);
  });

  it('gives every French plural its `_one`, `_many` and `_other` forms, so no count falls back to English', () => {
    const stems = new Set([...fr.keys()].filter((key) => /_(one|other|many)$/.test(key)).map((key) => key.replace(/_(one|other|many)$/, '')));
    const missing = [...stems].flatMap((stem) => ['one', 'many', 'other'].map((form) => `${stem}_${form}`)).filter((key) => !fr.has(key));
    expect(missing).toEqual([]);
    expect(new Intl.PluralRules('fr').resolvedOptions().pluralCategories.sort()).toEqual(['many', 'one', 'other']);
  });

  it('lists the same namespaces for both languages', () => {
    expect(Object.keys(resources.fr).sort()).toEqual(Object.keys(english).sort());
  });
});

describe('language and formats', () => {
  it('picks French for any fr-* system tag and English otherwise', () => {
    expect(languageFromTag('fr-CM')).toBe('fr');
    expect(languageFromTag('fr')).toBe('fr');
    expect(languageFromTag('en-US')).toBe('en');
    expect(languageFromTag('de-DE')).toBe('en');
    expect(languageFromTag(undefined)).toBe('en');
    expect(resolveLanguage('system', 'fr-FR')).toBe('fr');
    expect(resolveLanguage('en', 'fr-FR')).toBe('en');
    expect(localeFor('fr', 'fr-FR')).toBe('fr-FR');
    expect(localeFor('fr', 'en-US')).toBe('fr-CM');
  });

  it('writes money with French grouping and the FCFA name in French, the code in English', () => {
    const normal = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
    expect(normal(formatMoney(1_000_000, 'XAF', 'fr-CM'))).toBe('1 000 000 FCFA');
    expect(formatMoney(1_000_000, 'XAF', 'en-GB')).toBe('1,000,000 XAF');
    expect(formatMoney(null, 'XAF', 'fr-CM')).toBe('—');
  });

  it('names the currency as French readers expect in labels, the code in English', () => {
    expect(currencyLabel('XAF', 'fr-CM')).toBe('FCFA');
    expect(currencyLabel('XAF', 'en-GB')).toBe('XAF');
    expect(currencyLabel('NOPE', 'fr-CM')).toBe('NOPE');
  });

  it('writes dates in the language asked for', () => {
    const iso = '2026-03-05T10:00:00.000Z';
    expect(formatDateTime(iso, 'fr-CM')).toMatch(/mars/);
    expect(formatDateTime(iso, 'en-GB')).toMatch(/Mar/);
  });
});
