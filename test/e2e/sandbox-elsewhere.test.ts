/**
 * A colleague's local-sandbox payment whose outcome is unknown, opened on kofi's desktop in a real
 * Chromium (docs/decisions/local-sandbox-follow-ups.md): "Look it up" says it lives in that
 * colleague's desktop's sandbox, in English and French, and the entry stays as it was.
 * Screenshots in test-results/screenshots (sandbox-elsewhere-en, sandbox-elsewhere-fr).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { axeViolations, serious } from './axe';
import { screenshot, startHarness, type Harness } from './harness';
import { choosePreferences } from './preferences';

let workspaces: TestWorkspaces;
let database: string;
let h: Harness;
let page: Page;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const fatou = await workspaces.connectAs('fatou', database);
  await fatou.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, created_at, updated_at)
     VALUES ('fatou-unknown', 'local-sandbox', 'Local sandbox', 'sandbox', 'payment', 'outcome_unknown', 'FATOU-LOCAL-9', 4200, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', 1, 1)`,
  );
  await fatou.end();
  h = await startHarness({ openStorage: async () => workspaces.storeAs('kofi', database) });
  page = h.page;
  await page.goto(h.host.url);
  await page.locator('.env-marker').waitFor();
}, 180_000);

afterAll(async () => {
  await h?.close();
  await workspaces?.stop();
});

const WORDS = {
  en: { lookUp: 'Look it up', says: 'it lives in that desktop’s sandbox' },
  fr: { lookUp: 'Rechercher', says: 'elle vit dans le bac à sable de ce poste' },
} as const;

describe('a colleague’s local-sandbox entry', () => {
  it.each(['en', 'fr'] as const)('says where it lives when looked up (%s)', async (language) => {
    await choosePreferences(page, language, language === 'en' ? 'light' : 'dark');
    await page.evaluate(() => (location.hash = '#/timeline/fatou-unknown'));
    await page.locator('#timeline-title').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: WORDS[language].lookUp, exact: false }).first().click();
    await page.getByText(WORDS[language].says, { exact: false }).first().waitFor({ timeout: 20_000 });
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `sandbox-elsewhere-${language}`);
    const sql = await workspaces.connectAs('tester', database);
    const { rows } = await sql.query(`SELECT state, resolution FROM entries WHERE id = 'fatou-unknown'`);
    await sql.end();
    expect(rows[0]).toEqual({ state: 'outcome_unknown', resolution: null });
  }, 90_000);

  it('logged no errors in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
