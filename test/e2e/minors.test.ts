/**
 * Issue 37 item 7's minors, as a person meets them in Chromium (one desktop, real engine, real
 * SQLite): names and e-mails in the bulk rows never broken in the middle of a word at 1280 px (cut
 * with an ellipsis, the whole value in the title), a row's duplicate warning on its own line, the
 * batch confirmation whole inside an 800 px window, the request inspector's detail brought into
 * view with focus when a row far down a long list opens it (and a `Bearer ` key named), and the wide
 * screens using a 1920 px window. English and French. Screenshots `minors-*` in test-results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { canonicalBytes, computeSignature } from '@paydesk/sandbox';
import type { Channel, ChannelInput, ChannelResults, Result } from '../../shared/api';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const STATE_TIMEOUT = 30_000;
const fileName = `primes-minors-${process.pid}.csv`;

async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelResults[C]> {
  const handler = h.runtime.handlers[channel] as unknown as (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>>;
  const result = await handler(input);
  if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
  return result.value;
}

async function go(hash: string): Promise<void> {
  await page.evaluate((to) => (location.hash = to), hash);
  await page.locator('main h1').first().waitFor();
}

async function setLanguage(language: 'en' | 'fr'): Promise<void> {
  await go('#/settings');
  await page.locator('#language-choice').selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
}

async function openBatch(): Promise<void> {
  await go('#/batches');
  const back = page.locator('main button.link', { hasText: '←' });
  if ((await back.count()) > 0) await back.first().click();
  await page.locator('.batch-list tr', { hasText: fileName }).locator('button').first().click();
  await page.locator('main h1', { hasText: fileName }).waitFor();
  await page.locator('.batch-grid-row').first().waitFor();
}

/** A request the engine refuses, its key sent as "Bearer pk_…" (pasted from another API's example). */
async function sendWithBearer(n: number): Promise<void> {
  const publicKey = 'pk_sandbox_payment_paydeskdemo01';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const path = `/v1/payments/TE_minors_${n}`;
  const signature = computeSignature('sk_sandbox_payment_paydeskdemo01_secret', canonicalBytes({ publicKey, timestamp, method: 'GET', path, payload: '' }));
  const response = await fetch(`${h.runtime.engineUrl}${path}?identifier_type=transaction_id`, {
    headers: { Authorization: `Bearer ${publicKey}`, 'X-SVC-Timestamp': timestamp, 'X-SVC-Signature': signature, 'X-SVC-Environment': 'sandbox' },
  });
  await response.text();
}

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 800 } });
  page = h.page;
  const header = 'phone_number,amount,first_name,last_name,email,description,external_id,meta.region';
  const rows = [
    `+237650000001,250000,Awa,Nkemdirim,jean.mbarga1@entreprise-exemple.cm,Prime de fin d’année,PRIME-MIN-1-${process.pid},Littoral`,
    `+237650000001,250000,Jean-Baptiste Emmanuel,Mbarga-Ndongo,jean.baptiste.mbarga-ndongo@entreprise-exemple.cm,Prime,PRIME-MIN-2-${process.pid},Centre`,
    ...Array.from({ length: 10 }, (_, i) => `+2376510000${String(i + 10)},${10_000 + i},Chantal,Essomba,chantal.essomba${i}@example.com,Prime,PRIME-MIN-${i + 3}-${process.pid},Ouest`),
  ];
  await call('batches:import', { fileName, text: `${[header, ...rows].join('\n')}\n`, paymentMethod: 'momo_cm' });
  await page.goto(h.host.url);
  await page.locator('.env-marker').waitFor();
}, 180_000);

afterAll(async () => {
  await h?.close();
});

/** In the page: name and e-mail pieces of the bulk rows drawn on more than one line (a word broken), and cut values without their whole text as a title. */
function brokenNames(): string[] {
  const problems: string[] = [];
  for (const cell of document.querySelectorAll<HTMLElement>('.batch-cell:is([data-column="first_name"], [data-column="last_name"], [data-column="email"])')) {
    const value = cell.querySelector<HTMLElement>('.value-button, .value');
    if (!value) continue;
    const text = value.textContent ?? '';
    const walker = document.createTreeWalker(value, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const content = node.textContent ?? '';
      // Whole words: a name breaks at spaces and after a hyphen; an e-mail's text nodes are its pieces, each whole.
      const email = cell.dataset.column === 'email';
      let at = 0;
      for (const word of (email ? [content] : content.split(/\s+|(?<=-)/)).filter(Boolean)) {
        const start = content.indexOf(word, at);
        at = start + word.length;
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, start + word.length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push(`"${word}" broken across lines in ${cell.dataset.column}`);
      }
    }
    if (value.scrollWidth > value.clientWidth + 1 && !(value.title || '').includes(text.trim())) problems.push(`"${text}" cut without its whole value as a title`);
  }
  return problems;
}

describe.each(['en', 'fr'] as const)('the minors in %s', (language) => {
  it('bulk rows at 1280 px: no name or e-mail broken in a word; the duplicate warning on its own line, not under Metadata', async () => {
    await setLanguage(language);
    await openBatch();
    expect(await page.evaluate(brokenNames)).toEqual([]);
    const first = page.locator('.batch-grid-row').first();
    const flag = first.locator('.row-flags');
    await flag.waitFor();
    const metadata = first.locator('[role="cell"]').nth(7);
    expect(await metadata.textContent()).not.toMatch(/row 2|ligne 2/);
    const [flagBox, metadataBox] = [await flag.boundingBox(), await metadata.boundingBox()];
    // Under the row's values, starting at the first value column, not inside the Metadata cell.
    expect(flagBox!.y).toBeGreaterThanOrEqual(metadataBox!.y + metadataBox!.height - 1);
    expect(flagBox!.x).toBeLessThan(metadataBox!.x);
    await screenshot(page, `minors-batch-rows-1280-${language}`);
  });

  it('the batch confirmation fits an 800 px window whole: facts, Send and Cancel without scrolling', async () => {
    await page.getByRole('button', { name: language === 'en' ? 'Review and send' : 'Relire et envoyer' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: language === 'en' ? /^Send \d+ payouts$/ : /^Envoyer \d+ transferts$/ }).waitFor({ timeout: STATE_TIMEOUT });
    // The batch changes under the open confirmation (a colleague's edit): Send is refused, the reason shown in the dialog.
    const batchId = (await call('batches:list', {})).batches.find((b) => b.fileName === fileName)!.id;
    await call('batches:updateRow', { batchId, rowNumber: 5, values: { description: `Prime ${language}` } });
    await dialog.getByRole('button', { name: language === 'en' ? /^Send \d+ payouts$/ : /^Envoyer \d+ transferts$/ }).click();
    const refusal = dialog.getByTestId('batch-confirm-refusal');
    await refusal.waitFor({ timeout: STATE_TIMEOUT });
    // Focus on the reason, never left on <body> by the spent Send.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'batch-confirm-refusal');
    // Facts, the refusal, Send and Cancel all inside an 800 px window, with nothing to scroll to.
    const size = await dialog.evaluate((el) => ({ bottom: el.getBoundingClientRect().bottom, scroll: el.scrollHeight, client: el.clientHeight }));
    expect(size.scroll).toBeLessThanOrEqual(size.client + 1);
    expect(size.bottom).toBeLessThanOrEqual(800);
    await screenshot(page, `minors-batch-confirm-refused-1280-${language}`);
    await dialog.getByRole('button', { name: language === 'en' ? 'Cancel' : 'Annuler' }).click();
    await dialog.waitFor({ state: 'detached' });
  });
});

describe('the request inspector', () => {
  it('brings a row’s detail into view with focus when a row far down the list opens it, and names a Bearer prefix', async () => {
    await setLanguage('en');
    for (let n = 0; n < 40; n += 1) await sendWithBearer(n);
    await go('#/sandbox');
    const oldest = page.getByRole('button', { name: 'Open request GET /v1/payments/TE_minors_0?identifier_type=transaction_id, answered 401' });
    await oldest.waitFor({ timeout: STATE_TIMEOUT });
    await oldest.click();
    const heading = page.locator('#request-detail-title');
    await heading.waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'request-detail-title');
    const box = await heading.boundingBox();
    // In view, below the sticky top bar (not behind it).
    const bar = await page.locator('.topbar').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(bar!.y + bar!.height);
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);
    expect(await page.getByRole('note', { name: 'Why it failed' }).textContent()).toContain('starts with “Bearer”');
    await screenshot(page, 'minors-inspector-detail-1280-en');
  });
});

describe('at 1920×1080', () => {
  it('the wide screens use the window’s width, not two thirds of it', async () => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    for (const screen of ['history', 'settings', 'sandbox', 'batches'] as const) {
      await go(`#/${screen}`);
      const { used, room } = await page.evaluate(() => {
        const content = document.querySelector<HTMLElement>('.content')!;
        const style = getComputedStyle(content);
        const room = content.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { used: document.querySelector('main .screen')!.getBoundingClientRect().width, room };
      });
      expect(used, screen).toBeGreaterThanOrEqual(room * 0.9);
      await screenshot(page, `minors-${screen}-1920-en`);
    }
    await openBatch();
    await screenshot(page, 'minors-batch-rows-1920-en');
    expect(h.pageErrors).toEqual([]);
  });
});
