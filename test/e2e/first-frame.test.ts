/**
 * The first frame in a real Chromium over the real console (issue 28 target 1; decision
 * first-frame-before-react.md): with the app's script held back, the page already shows the
 * shell and the Overview's real figures, drawn by boot.ts alone; once the app runs, React takes
 * the page over with the same figures and the figures are never off screen in between. In the
 * language chosen in Settings from the first frame on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let release: () => void = () => undefined;
let held = false;

/**
 * Counts the moments (each batch of DOM changes) the Overview's figures were not in the page once
 * they had been, and keeps each heading the page showed, in order (a language switch would show two).
 */
const WATCH_FIGURES = `(() => {
  window.__figuresGone = 0;
  window.__headings = [];
  let seen = false;
  new MutationObserver(() => {
    const there = document.querySelector('.ov-period') !== null;
    if (there) seen = true;
    else if (seen) window.__figuresGone += 1;
    const heading = document.querySelector('main h1')?.textContent;
    if (heading && window.__headings.at(-1) !== heading) window.__headings.push(heading);
  }).observe(document, { childList: true, subtree: true, characterData: true });
})()`;
const headingsShown = () => page.evaluate(() => (window as unknown as { __headings: string[] }).__headings);

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
  const created = await h.runtime.handlers['payments:create']({
    request: { payment_method: 'momo_cm', amount: 2500, phone_number: '+237650000001', external_id: `first-frame-${Date.now()}`, customer: { first_name: 'Awa', last_name: 'Ngo', email: 'awa@example.com' } },
  });
  if (!created.ok) throw new Error(created.error.message);
  await page.addInitScript(WATCH_FIGURES);
  // The app's chunk (React, i18next, the stores) waits until the test lets it through.
  await page.route('**/assets/main-*.js', async (route) => {
    if (held) await new Promise<void>((done) => (release = done));
    await route.continue();
  });
});

afterAll(async () => {
  release();
  await h?.close();
});

describe('the first frame', () => {
  it('shows the real figures before the app runs, then the app takes over with the same ones', async () => {
    held = true;
    await page.goto(h.host.url);
    const frame = page.locator('[data-first-frame] #ov-today-title').locator('..');
    await frame.waitFor({ timeout: 60_000 });
    expect(await frame.locator('.ov-big').textContent()).toBe('1 transaction');
    expect(await frame.locator('.ov-amount').textContent()).toBe('2,500 XAF');
    expect(await page.locator('[data-first-frame] nav[aria-label="Screens"] button[aria-current="page"]').textContent()).toBe('Overview');
    expect(await page.locator('[data-first-frame]').getAttribute('inert')).toBe('');
    // Nothing of React's yet: the app's script has not arrived.
    expect(await page.locator('.ov-charts').count()).toBe(0);

    held = false;
    release();
    await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-first-frame]').count()).toBe(0);
    const today = page.getByRole('region', { name: 'Today' });
    expect(await today.locator('.ov-big').textContent()).toBe('1 transaction');
    expect(await page.evaluate(() => (window as unknown as { __figuresGone: number }).__figuresGone)).toBe(0);
    expect(await headingsShown()).toEqual(['Overview']);
    // The app works: the navigation is React's now.
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'History', exact: true }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(h.pageErrors).toEqual([]);
  });

  it('speaks the language chosen in Settings from the first frame on', async () => {
    const answer = await h.runtime.handlers['preferences:set']({ language: 'fr' });
    if (!answer.ok) throw new Error(answer.error.message);
    held = true;
    // A new document (a goto that only changes the fragment would not load the page again).
    await page.goto('about:blank');
    await page.goto(`${h.host.origin}/#/overview`);
    const frame = page.locator('[data-first-frame]');
    await frame.locator('h1').waitFor({ timeout: 60_000 });
    expect(await frame.locator('h1').textContent()).toBe('Aperçu');
    expect(await frame.locator('.ov-amount').first().textContent()).toMatch(/^2\s500\sFCFA$/);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
    held = false;
    release();
    await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Aperçu');
    expect(await headingsShown()).toEqual(['Aperçu']);
    expect(await page.evaluate(() => (window as unknown as { __figuresGone: number }).__figuresGone)).toBe(0);
    expect(h.pageErrors).toEqual([]);
  });

  it('asks for the app\'s script only once the first calls are answered (they never wait behind it)', async () => {
    await page.goto('about:blank');
    await page.goto(`${h.host.origin}/#/overview`);
    await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 30_000 });
    const timing = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({ path: new URL(r.name).pathname, start: r.startTime, end: r.responseEnd })),
    );
    const figures = timing.find((r) => r.path === '/api/invoke/overview:get');
    const app = timing.find((r) => /\/assets\/main-[^/]+\.js$/.test(r.path));
    expect(figures && app).toBeTruthy();
    expect(app!.start).toBeGreaterThanOrEqual(figures!.end);
  });
});
