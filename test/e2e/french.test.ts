/**
 * The whole console in French, in Chromium: French is chosen in Settings the way a person does it,
 * then every screen of the navigation is visited, the main dialogs opened (payout confirmation, a
 * transaction's timeline, field errors), and the visible text (body text plus aria-labels,
 * placeholders, titles and every option) is searched for English words, ids and codes excepted
 * (test/e2e/englishWords.ts). The finding per screen is written to
 * test-results/french-walk.json and printed, so whoever runs it sees what is still English.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { resources } from '../../shared/i18n';
import { findEnglish, type EnglishHit } from './englishWords';
import { ROOT, screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const STATE_TIMEOUT = 20_000;
const fr = resources.fr;
const en = resources.en;

/** Screen (or dialog) name -> English words found there. */
const findings = new Map<string, EnglishHit[]>();

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  await page.goto(h.host.url);
  await page.getByRole('status', { name: en.common.marker.sandboxLabel }).waitFor();
}, 120_000);

/** The profile this test adds, whose secret goes into the keychain: removed again at the end. */
let acmeId: string | null = null;

afterAll(async () => {
  if (acmeId) await h.runtime.handlers['secrets:delete']({ profileId: acmeId, keyType: 'payment' });
  await h?.close();
});

/** Everything a person can read or hear on the page now. */
async function visibleText(): Promise<string> {
  return page.evaluate(() => {
    // Text in <code> is an identifier (a CSV column name, a code), the same in every language.
    let body = document.body.innerText;
    for (const code of document.querySelectorAll('code')) body = body.replace((code as HTMLElement).innerText, ' ');
    const parts = [body];
    for (const element of document.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
      for (const attribute of ['aria-label', 'placeholder', 'title', 'alt']) {
        const value = element.getAttribute(attribute);
        if (value) parts.push(value);
      }
    }
    for (const option of document.querySelectorAll('option')) parts.push(option.textContent ?? '');
    return parts.join('\n');
  });
}

async function record(name: string): Promise<void> {
  const hits = findEnglish(await visibleText());
  findings.set(name, hits);
}

/** Waits until the open screen has its heading and nothing is loading any more. */
async function settled(): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.locator('main .loading').first().waitFor({ state: 'detached', timeout: STATE_TIMEOUT });
}

async function fillTransaction(prefix: 'payment' | 'payout', amount: string): Promise<void> {
  await page.locator(`#${prefix}-amount`).fill(amount);
  await page.locator(`#${prefix}-phone`).fill('+237650000001');
  await page.locator(`#${prefix}-first`).fill('Ada');
  await page.locator(`#${prefix}-last`).fill('Ndiaye');
  await page.locator(`#${prefix}-email`).fill('ada@example.com');
}

describe('the console in French', () => {
  it('finds English words in the English console (the detector works)', async () => {
    // The payment form: the Overview, the first screen, may be nearly empty on a fresh journal.
    await page.getByRole('navigation', { name: en.common.nav.label }).getByRole('button', { name: en.common.nav.payment, exact: true }).click();
    await page.locator('#payment-phone').waitFor();
    const hits = findEnglish(await visibleText());
    const words = new Set(hits.map((hit) => hit.word));
    for (const word of ['payment', 'amount', 'phone', 'history', 'settings']) expect(words).toContain(word);
    // and leaves ids, codes and URLs alone
    expect(findEnglish('TE_abc123 PAYER_NOT_FOUND http://127.0.0.1:3000/webhooks +237650000001 service_demo payment.completed pk_sandbox_payout_x')).toEqual([]);
    expect(findEnglish('Une transaction de test : type paiement').map((hit) => hit.word)).toEqual([]);
  });

  it('switches to French from Settings, and the choice survives a reload', async () => {
    await page.getByRole('navigation', { name: en.common.nav.label }).getByRole('button', { name: en.common.nav.settings, exact: true }).click();
    await page.locator('#language-choice').selectOption('fr');
    await page.getByRole('navigation', { name: fr.common.nav.label }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
    // A profile of one's own, with a stored payment secret: Settings then shows its keys.
    const acme = await h.runtime.handlers['profiles:save']({ name: 'Acme Cameroun', baseUrl: 'https://api.example.cm', environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: 'pk_sandbox_payment_acme1', payoutPublicKey: '' });
    if (!acme.ok) throw new Error(acme.error.message);
    acmeId = acme.value.id;
    const secret = await h.runtime.handlers['secrets:set']({ profileId: acme.value.id, keyType: 'payment', secret: 'sk_sandbox_payment_acme1_secret' });
    expect(secret.ok).toBe(true);
    await page.reload();
    const nav = page.getByRole('navigation', { name: fr.common.nav.label });
    await nav.getByRole('button', { name: fr.common.nav.settings, exact: true }).click();
    await expect(page.locator('#language-choice').inputValue()).resolves.toBe('fr');
  });

  it('walks every screen of the navigation and the main dialogs', async () => {
    const nav = page.getByRole('navigation', { name: fr.common.nav.label });
    const go = (name: string) => nav.getByRole('button', { name, exact: true }).click();

    // Field errors of an empty payment form, then a real payment: its timeline opens.
    await go(fr.common.nav.payment);
    await settled();
    await page.locator('section[aria-labelledby="payment-title"] button[type="submit"]').click();
    await page.locator('.field-error').first().waitFor();
    await record(`${fr.common.nav.payment} (erreurs de champ)`);
    await screenshot(page, 'fr-payment-errors');
    await fillTransaction('payment', '25000');
    await page.locator('section[aria-labelledby="payment-title"] button[type="submit"]').click();
    await page.locator('[data-status="completed"]').first().waitFor({ timeout: STATE_TIMEOUT });
    await record(`${fr.common.nav.timeline} (après un paiement)`);
    await screenshot(page, 'fr-timeline');

    // The payout confirmation dialog.
    await go(fr.common.nav.payout);
    await settled();
    await fillTransaction('payout', '1000');
    await page.locator('section[aria-labelledby="payout-title"] button[type="submit"]').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.locator('button[type="submit"]').waitFor();
    await dialog.locator('.loading').first().waitFor({ state: 'detached', timeout: STATE_TIMEOUT });
    await record('Dialogue : confirmation du transfert');
    await screenshot(page, 'fr-payout-confirm');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Every screen the navigation offers, whatever screens it has.
    const count = await nav.getByRole('button').count();
    expect(count).toBeGreaterThanOrEqual(7);
    for (let index = 0; index < count; index += 1) {
      const button = nav.getByRole('button').nth(index);
      const name = (await button.innerText()).trim();
      await button.click();
      await settled();
      await record(name);
      await screenshot(page, `fr-screen-${index}`);
    }
    // A profile's keys in Settings (the built-in profile has none to show).
    await go(fr.common.nav.settings);
    await page.locator('.profile-list button', { hasText: 'Acme Cameroun' }).click();
    await page.locator('.key-block').first().waitFor();
    await record(`${fr.common.nav.settings} (profil Acme Cameroun et ses clés)`);
    await screenshot(page, 'fr-settings-keys');
    expect(findings.size).toBe(count + 4);
  });

  it('imports a batch file in French: the file error, every bad cell and the Drop button', async () => {
    const nav = page.getByRole('navigation', { name: fr.common.nav.label });
    await nav.getByRole('button', { name: fr.common.nav.batches, exact: true }).click();
    await settled();
    const picker = page.getByLabel(fr.batch.importer.pickLabel);
    // A header that means no column: the file's error, in French, naming the accepted columns.
    const unknown = 'Téléphone;Montant;Prénom;Nom;Courriel;Couleur\n+237650000001;5000;Awa;N;a@example.com;rouge\n';
    await picker.setInputFiles({ name: 'couleur.csv', mimeType: 'text/csv', buffer: Buffer.from(unknown, 'utf8') });
    await page.getByText(/la colonne 6 « Couleur » n’est pas une colonne connue \(acceptées : phone_number/).waitFor();
    expect(await page.getByText(fr.errors.INVALID_INPUT.next).count()).toBe(0);
    await record(`${fr.common.nav.batches} (fichier refusé)`);
    // Headers as people write them, and bad cells: each error under its cell, in French.
    const bad = [
      'Téléphone;Montant;Prénom;Nom;E-mail;Description',
      '+2376500;5000;Awa;Nkemdirim;awa@example.com;Octobre',
      '+237650000002;12,5;Jean;Mbarga;jean@example;Avance',
      '2.3765E+11;abc;;Essomba;c@example.com;Prime',
    ].join('\n');
    await picker.setInputFiles({ name: 'octobre.csv', mimeType: 'text/csv', buffer: Buffer.from(`${bad}\n`, 'utf8') });
    await page.getByRole('heading', { level: 1, name: 'octobre.csv' }).waitFor();
    const table = page.getByRole('table');
    await table.getByText(fr.fields.phone).first().waitFor();
    await table.getByText(fr.fields.noDecimals).waitFor();
    await table.getByText(fr.fields.spreadsheetPhone).waitFor();
    await record(`${fr.common.nav.batches} (lignes invalides)`);
    await screenshot(page, 'fr-batch-invalid-cells');
    // The Drop button reads whole in French.
    const clipped = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.row-actions button')].filter((b) => b.scrollWidth > b.clientWidth + 1 || b.getBoundingClientRect().right > b.closest('.batch-grid')!.getBoundingClientRect().right + 0.5).length);
    expect(clipped).toBe(0);
    expect(await page.locator('.row-actions button').first().innerText()).toBe(fr.batch.table.drop);
  });

  it('leaves no English word in the visible UI', () => {
    const report = Object.fromEntries(
      [...findings].filter(([, hits]) => hits.length > 0).map(([screen, hits]) => [screen, [...new Set(hits.map((hit) => hit.word))].sort()]),
    );
    const lines = Object.fromEntries([...findings].filter(([, hits]) => hits.length > 0).map(([screen, hits]) => [screen, [...new Set(hits.map((hit) => hit.line))]]));
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    writeFileSync(join(ROOT, 'test-results/french-walk.json'), `${JSON.stringify({ words: report, lines }, null, 2)}\n`);
    if (Object.keys(report).length > 0) console.log(`English left in the French console (test-results/french-walk.json):\n${JSON.stringify(report, null, 2)}`);
    expect(report).toEqual({});
  });
});
