/**
 * Language and theme chosen in Settings, as a person does, each waited for on the page: the
 * screens' tests walk English and French in both themes.
 */
import type { Page } from 'playwright-core';

export async function choosePreferences(page: Page, language: 'en' | 'fr', theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate(() => (location.hash = '#/settings'));
  await page.locator('#language-choice').selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
  await page.locator('#theme-choice').selectOption(theme);
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
}
