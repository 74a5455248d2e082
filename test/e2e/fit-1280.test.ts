/**
 * Every screen at 1280×800, with data in it, in English and French (issue 26 item 13): no cell,
 * badge or heading whose text overflows its box, no header word broken across lines, no word
 * broken that would fit whole, no table wider than its box; the bulk rows get most of the window.
 * The data: a payment with a long e-mail and description, a sent batch (completed, failed,
 * cancelled and refused rows), a rehearsed draft (rows that would fail), a reconciliation, and a
 * top-up with the French reason. Screenshots: `fit-<screen>-<language>` in test-results.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Channel, ChannelInput, ChannelResults, Result } from '../../shared/api';
import { fitProblems } from './fit';
import { browserDay, screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let journalId = '';
const sentFile = `salaires-novembre-${process.pid}.csv`;
const draftFile = `primes-decembre-${process.pid}.csv`;
const reconcileFile = join(tmpdir(), `paydesk-fit-orders-${process.pid}.csv`);

async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelResults[C]> {
  const handler = h.runtime.handlers[channel] as unknown as (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>>;
  const result = await handler(input);
  if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
  return result.value;
}

const HEADER = 'phone_number,amount,first_name,last_name,email,description,external_id';
const row = (phone: string, amount: number, first: string, last: string, email: string, description: string, external: string) => [phone, amount, first, last, email, description, external].join(',');

/** Waits for a sent batch to stop and every accepted row to settle (the watcher's own pace). */
async function settled(batchId: string): Promise<void> {
  for (;;) {
    const detail = await call('batches:get', { batchId });
    const counts = detail.batch.counts;
    if (detail.batch.state === 'done' && counts.processing === 0 && counts.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 800 } });
  page = h.page;
  const pid = process.pid;
  const created = await call('payments:create', {
    request: {
      payment_method: 'momo_cm',
      amount: 125_000,
      phone_number: '+237650000001',
      external_id: `FACT-2026-11-DOUALA-${pid}`,
      description: 'Remboursement de la facture du fournisseur principal pour novembre',
      customer: { first_name: 'Jean-Baptiste', last_name: 'Mbarga-Ndongo', email: 'jean-baptiste.mbarga-ndongo@entreprise-exemple.cm' },
    },
  });
  journalId = created.id;
  await call('payments:create', {
    request: { payment_method: 'momo_cm', amount: 2_500, phone_number: '+237650000002', external_id: `FACT-REFUS-${pid}`, customer: { first_name: 'Awa', last_name: 'Ngo', email: 'awa@example.com' } },
  });
  await call('sandbox:topUp', { environment: 'sandbox', amount: 5_000_000, reason: 'Approvisionnement depuis la console' });

  // A sent batch: completed, failed, cancelled, and one already sent earlier (its external id was used above by a
  // payout: confirmed as only to be looked up, it adopts that payout).
  await call('payouts:prepare', { request: { payment_method: 'momo_cm', amount: 1_000, phone_number: '+237650000001', external_id: `SAL-USED-${pid}`, customer: { first_name: 'A', last_name: 'B', email: 'a@example.com' } } }).then((quote) =>
    call('payouts:initiate', { request: { payment_method: 'momo_cm', amount: 1_000, phone_number: '+237650000001', external_id: `SAL-USED-${pid}`, customer: { first_name: 'A', last_name: 'B', email: 'a@example.com' } }, confirmationToken: quote.confirmationToken }),
  );
  const sentText = [
    HEADER,
    row('+237650000001', 250_000, 'Jean-Baptiste Emmanuel', 'Mbarga-Ndongo de la Rivière', 'jean.baptiste.mbarga@entreprise-exemple.cm', 'Salaire de novembre et prime de fin d’année', `SAL-2026-11-DOUALA-AGENCE-CENTRALE-${pid}`),
    row('+237650000002', 180_000, 'Chantal', 'Essomba', 'chantal.essomba@example.com', 'Salaire de novembre', `SAL-2-${pid}`),
    row('+237650000009', 95_000, 'Paul', 'Atangana', 'paul@example.com', 'Avance', `SAL-3-${pid}`),
    row('+237650000001', 40_000, 'Awa', 'Nkemdirim', 'awa@example.com', 'Commission', `SAL-USED-${pid}`),
  ].join('\n');
  const sent = await call('batches:import', { fileName: sentFile, text: `${sentText}\n`, paymentMethod: 'momo_cm' });
  const confirmation = await call('batches:prepare', { batchId: sent.batch.id, acceptDuplicateFile: true });
  await call('batches:start', { batchId: sent.batch.id, confirmationToken: confirmation.confirmationToken });
  await settled(sent.batch.id);

  // A draft, rehearsed: some rows would fail, one would be cancelled.
  const draftText = [
    HEADER,
    row('+237650000001', 15_000, 'Éloïse', 'Tchoupé', 'eloise.tchoupe@entreprise-exemple.cm', 'Prime de décembre pour l’agence de Bonanjo', `PRIME-2026-12-BONANJO-${pid}`),
    row('+237650000003', 15_000, 'Samuel', 'Eto', 'samuel@example.com', 'Prime de décembre', `PRIME-2-${pid}`),
    row('+237650000009', 15_000, 'Grâce', 'Ndzi', 'grace@example.com', 'Prime', `PRIME-3-${pid}`),
    // Enough rows to fill the window: the rows box must show many, not three.
    ...Array.from({ length: 27 }, (_, i) => row(`+2376510000${String(i + 10).padStart(2, '0')}`, 10_000 + i, 'Marie', `Fotso ${i + 4}`, `marie.fotso${i + 4}@example.com`, 'Prime', `PRIME-${i + 4}-${pid}`)),
  ].join('\n');
  const draft = await call('batches:import', { fileName: draftFile, text: `${draftText}\n`, paymentMethod: 'momo_cm' });
  await call('batches:rehearse', { batchId: draft.batch.id });

  const today = browserDay();
  writeFileSync(reconcileFile, `external_id;kind;amount;expected_status;date;merchant_note\r\nFACT-2026-11-DOUALA-${pid};payment;125000;paid;${today};client fidèle\r\nFACT-REFUS-${pid};payment;2600;paid;${today};\r\nmissing-1;payment;900;paid;${today};\r\n`);
  await page.goto(h.host.url);
  await page.locator('.env-marker').waitFor();
  await go('#/reconcile');
  await page.locator('input[type="file"]').setInputFiles(reconcileFile);
  await page.locator('.reconcile-form button[type="submit"]').click();
  await page.locator('.reconcile-progress .pill-done').waitFor({ timeout: 60_000 });
}, 240_000);

afterAll(async () => {
  rmSync(reconcileFile, { force: true });
  await h?.close();
});

async function settle(): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('main .loading, main .row-placeholder').length === 0, undefined, { timeout: 30_000 }).catch(() => undefined);
}

async function go(hash: string): Promise<void> {
  await page.evaluate((to) => (location.hash = to), hash);
  await settle();
}

/** A batch opened from the list, by its file name. */
async function openBatch(fileName: string): Promise<void> {
  await go('#/batches');
  // An open batch stays open on its screen: back to the list first.
  const back = page.locator('main button.link', { hasText: '←' });
  if ((await back.count()) > 0) await back.first().click();
  await page.locator('.batch-list tr', { hasText: fileName }).locator('button').first().click();
  await page.locator('main h1', { hasText: fileName }).waitFor();
  await page.locator('.batch-grid-row').first().waitFor();
  await settle();
}

async function setLanguage(language: 'en' | 'fr'): Promise<void> {
  await go('#/settings');
  await page.locator('#language-choice').selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
}

// Approvals and Audit here as one desktop shows them (a sentence: they need a team workspace); with a workspace's
// data they are walked in approvals-fit-a11y.test.ts.
const SCREENS = ['overview', 'payment', 'payout', 'batches', 'lookup', 'timeline', 'history', 'reconcile', 'approvals', 'audit', 'sandbox', 'settings'] as const;

describe.each(['en', 'fr'] as const)('every screen at 1280×800 in %s', (language) => {
  it('draws every cell, badge and heading whole, and every table inside its box', async () => {
    await setLanguage(language);
    const problems: string[] = [];
    const check = async (where: string) => {
      for (const problem of await fitProblems(page)) problems.push(`${where}: ${problem}`);
      await screenshot(page, `fit-${where}-${language}`);
    };
    for (const screen of SCREENS) {
      await go(screen === 'timeline' ? `#/timeline/${encodeURIComponent(journalId)}` : `#/${screen}`);
      if (screen === 'reconcile') {
        await page.locator('.reconcile-runs button').first().click();
        await page.locator('.rc-line').nth(1).waitFor();
      }
      await check(screen);
    }
    await openBatch(sentFile);
    await page.locator('.batch-grid').scrollIntoViewIfNeeded();
    await check('batch-sent');
    await openBatch(draftFile);
    await page.locator('.rehearsal-failures').scrollIntoViewIfNeeded();
    await check('batch-rehearsed');
    // The rows get most of the window, not a small box of three rows.
    const rowsBox = await page.locator('.batch-grid-scroll').evaluate((el) => el.getBoundingClientRect().height);
    expect(rowsBox).toBeGreaterThanOrEqual(400);
    // Every problem by name, not the first few of a long diff.
    if (problems.length > 0) console.log(`${language}: ${problems.length} cut or broken\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
  });
});
