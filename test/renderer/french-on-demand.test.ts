/**
 * The renderer's first chunk holds the English catalogue only; French arrives when it is the
 * language in use (issue 28), and a window switched to French is drawn with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyLanguage, currentLanguage, i18n, languageReady } from '../../renderer/src/i18n';

afterEach(async () => {
  await applyLanguage('en');
});

describe('French catalogue on demand', () => {
  it('is not loaded on an English system, and is there once French is applied', async () => {
    await languageReady;
    expect(i18n.hasResourceBundle('en', 'common')).toBe(true);
    expect(i18n.hasResourceBundle('fr', 'common')).toBe(false);
    expect(await applyLanguage('fr')).toBe('fr');
    expect(currentLanguage()).toBe('fr');
    expect(i18n.hasResourceBundle('fr', 'overview')).toBe(true);
    expect(i18n.t('overview:title')).toBe('Aperçu');
  });
});
