/**
 * Readable tables (issue 16 item 5), in Chromium against the real runtime: at 1280×800 a bad
 * cell's error wraps under its cell and is read whole without hovering, long names and external
 * ids are shown whole; at 1920×1080 the bulk rows use the window's width; a column is resized with
 * the keyboard on its header's separator and every row follows. Screenshots at both sizes
 * (`batch-table-1280`, the README's, and `batch-table-1920`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
let dir: string;

const LONG_ID = 'SALAIRES-2026-11-DOUALA-AGENCE-CENTRALE-0000187';
const ROWS = [
  ['+237650000001', '10000', 'Awa', 'Nkemdirim', 'awa@example.com', 'Commission octobre', LONG_ID],
  ['+2376500', '20000', 'Jean-Baptiste Emmanuel', 'Mbarga-Ndongo de la Rivière', 'jean.baptiste.mbarga@example.com', 'Avance', 'SAL-2'],
  ['+237650000009', '12.5', 'Chantal', 'Essomba', 'chantal@example', 'Remboursement 1042', 'SAL-3'],
];

/** Whether every `.cell-error` in the table is drawn whole: no overflow, inside its row's box. */
async function errorsDrawnWhole(): Promise<{ count: number; cut: string[] }> {
  return page.evaluate(() => {
    const cut: string[] = [];
    const errors = [...document.querySelectorAll<HTMLElement>('.batch-grid .cell-error')];
    for (const error of errors) {
      const row = error.closest<HTMLElement>('[role="row"]')!.getBoundingClientRect();
      const box = error.getBoundingClientRect();
      const overflowing = error.scrollWidth > error.clientWidth + 1 || error.scrollHeight > error.clientHeight + 1;
      if (overflowing || box.bottom > row.bottom + 0.5 || box.top < row.top - 0.5) cut.push(error.textContent ?? '');
    }
    return { count: errors.length, cut };
  });
}

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 800 } });
  page = h.page;
  dir = mkdtempSync(join(tmpdir(), 'paydesk-tables-e2e-'));
  const csv = ['phone_number,amount,first_name,last_name,email,description,external_id', ...ROWS.map((row) => row.join(','))].join('\n');
  writeFileSync(join(dir, 'novembre.csv'), `${csv}\n`, 'utf8');
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
  await page.getByLabel('CSV file of payouts').setInputFiles(join(dir, 'novembre.csv'));
  await page.getByRole('heading', { level: 1, name: 'novembre.csv' }).waitFor();
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bulk rows at 1280 and 1920 px', () => {
  it('at 1280 px shows each bad cell’s error whole under its cell, and names and ids whole', async () => {
    const table = page.getByRole('table', { name: /Rows of the batch/ });
    await table.getByText(/^must be \+ followed by the country code/).waitFor();
    const drawn = await errorsDrawnWhole();
    expect(drawn.count).toBeGreaterThanOrEqual(3);
    expect(drawn.cut).toEqual([]);
    // The values themselves (names, external ids) are not cut either, unless a word too long for its
    // column ends in an ellipsis with the whole value as its title (issue 37 item 7: never broken in a word).
    const cutValues = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.batch-grid .value-button')]
        .filter((el) => el.scrollWidth > el.clientWidth + 1)
        .filter((el) => {
          const text = el.textContent ?? '';
          const titled = [el, ...el.querySelectorAll<HTMLElement>('*')].some((node) => getComputedStyle(node).textOverflow === 'ellipsis' && (node.title || el.title || '').includes(text.trim()));
          return !titled;
        })
        .map((el) => el.textContent),
    );
    expect(cutValues).toEqual([]);
    // Column headers are read whole too.
    const cutHeaders = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.batch-grid-head .grid-col-label')].filter((el) => el.scrollWidth > el.parentElement!.clientWidth).map((el) => el.textContent),
    );
    expect(cutHeaders).toEqual([]);
    await table.getByRole('button', { name: new RegExp(`^Edit External id of row 2: ${LONG_ID}$`) }).waitFor();
    // The table's own box stays inside the window (no part of it hidden to the right).
    const gridRight = await page.locator('.batch-grid').evaluate((el) => el.getBoundingClientRect().right);
    expect(gridRight).toBeLessThanOrEqual(1280);
    // Every column fits: the table does not scroll sideways, so the Drop buttons are in view.
    const scroll = await page.locator('.batch-grid-scroll').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
    await page.locator('.batch-grid').scrollIntoViewIfNeeded();
    await screenshot(page, 'batch-table-1280');
  });

  it('resizes a column from its header with the keyboard, head and rows together', async () => {
    const separator = page.getByRole('separator', { name: /^Resize the column Email/ });
    const widthOf = () => page.evaluate(() => {
      const head = document.querySelector<HTMLElement>('.batch-grid-head')!;
      const row = document.querySelector<HTMLElement>('.batch-grid-row')!;
      const headCell = head.children[5] as HTMLElement;
      const rowCell = row.children[5] as HTMLElement;
      return { head: headCell.getBoundingClientRect().width, row: rowCell.getBoundingClientRect().width };
    });
    const before = await widthOf();
    await separator.focus();
    for (let i = 0; i < 4; i += 1) await separator.press('ArrowRight');
    const after = await widthOf();
    expect(after.head).toBeGreaterThan(before.head + 40);
    expect(Math.abs(after.row - after.head)).toBeLessThan(1);
    await separator.dblclick();
    await expect.poll(async () => Math.round((await widthOf()).head)).toBe(Math.round(before.head));
  });

  it('at 1920 px uses the window’s width', async () => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const grid = await page.locator('.batch-grid').evaluate((el) => el.getBoundingClientRect().width);
    // The window less the sidebar (190 px), the content's padding (2 × 30 px) and the card's (2 × 19 px):
    // 1,630 px (it stopped at 1,140 px before).
    expect(grid).toBeGreaterThan(1600);
    expect((await errorsDrawnWhole()).cut).toEqual([]);
    await screenshot(page, 'batch-table-1920');
  });
});
