/**
 * What a person sees cut at a given window size, measured in the page (axe does not see these):
 * a table cell, badge, pill or heading whose text overflows its box (scrollWidth > clientWidth:
 * an ellipsis without the whole value as its title, or text under the next column); a column header with a word broken across lines; a
 * word elsewhere broken across lines although it would fit whole on one (identifiers in monospace
 * may wrap anywhere); a table wider than the box that holds it (clipped on the right, or scrolled
 * sideways); a filled-in text box whose value is cut; an environment pill on two lines.
 */
import type { Page } from 'playwright-core';

/** Runs in the page: one line per problem, naming the element and its text. */
function measure(): string[] {
  const problems: string[] = [];
  const shown = (el: Element) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && !el.closest('.sr-only, [hidden], [aria-hidden="true"]');
  };
  const label = (el: Element) => `${el.tagName.toLowerCase()}${el.classList.length ? `.${[...el.classList].join('.')}` : ''} "${(el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 48)}"`;
  const HEADERS = 'th, [role="columnheader"], .grid-col-label, .rc-head > *';
  const BOXES = `td, [role="cell"], [role="gridcell"], ${HEADERS}, .badge, .pill, .cat-pill, .batch-state, h1, h2, h3, dd, .rc-line > span, .batch-cell, .value-button`;
  // Where a line may break in a word without a space: after @ . _ - / (an email, an id, a path).
  const pieces = (text: string) => text.split(/\s+|(?<=[@._\-/])/).filter((piece) => piece.length > 1);
  /** The width a text node's lines have: its nearest block box's, inside the padding. */
  const roomOf = (node: Node): number => {
    let box = node.parentElement;
    while (box && getComputedStyle(box).display.startsWith('inline') && box.parentElement) box = box.parentElement;
    if (!box) return Infinity;
    const style = getComputedStyle(box);
    return box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  };
  /** The pieces of an element's text that sit on more than one line, their widths and the room they had. */
  const brokenPieces = (el: Element): { piece: string; width: number; room: number; code: boolean }[] => {
    const found: { piece: string; width: number; room: number; code: boolean }[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // Identifiers and paths (monospace, code) have no words: they may wrap anywhere.
      const code = Boolean(node.parentElement?.closest('.mono, code, .code'));
      const room = roomOf(node);
      const text = node.textContent ?? '';
      let at = 0;
      for (const piece of pieces(text)) {
        const start = text.indexOf(piece, at);
        at = start + piece.length;
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, start + piece.length);
        const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
        const lines = new Set(rects.map((rect) => Math.round(rect.top)));
        if (lines.size > 1) found.push({ piece, width: rects.reduce((sum, rect) => sum + rect.width, 0), room, code });
      }
    }
    return found;
  };
  for (const el of document.querySelectorAll(`main :is(${BOXES})`)) {
    if (!shown(el)) continue;
    const html = el as HTMLElement;
    // A value cut with an ellipsis whose whole text is its title is read whole on hover (issue 37 item 7): not a fault.
    const text = (html.textContent ?? '').trim();
    const ellipsed = getComputedStyle(html).textOverflow === 'ellipsis' && text !== '' && (html.title || '').includes(text);
    if (html.scrollWidth > html.clientWidth + 1 && !ellipsed) problems.push(`overflows its box (${html.scrollWidth} > ${html.clientWidth} px): ${label(el)}`);
    const header = el.matches(HEADERS);
    for (const { piece, width, room, code } of brokenPieces(el)) {
      // A header's word is never broken; elsewhere only a word that would fit whole is a fault.
      if (header || (!code && width <= room)) problems.push(`word broken across lines: "${piece}" (${Math.round(width)} px, room ${Math.round(room)}) in ${label(el)}`);
    }
  }
  // An environment pill broken over two lines reads as two tags (“BAC À” / “SABLE”).
  for (const pill of document.querySelectorAll('main .env-pill')) {
    if (!shown(pill)) continue;
    const range = document.createRange();
    range.selectNodeContents(pill);
    const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
    if (lines.size > 1) problems.push(`pill broken across lines: ${label(pill)}`);
  }
  // A filled-in value cut in its box (the French top-up reason).
  for (const input of document.querySelectorAll<HTMLInputElement>('main input:is([type="text"], :not([type]))')) {
    if (shown(input) && input.value !== '' && input.scrollWidth > input.clientWidth + 1) problems.push(`value cut in its box (${input.scrollWidth} > ${input.clientWidth} px): input "${input.value.slice(0, 48)}"`);
  }
  for (const table of document.querySelectorAll('main :is(table, [role="table"], [role="grid"])')) {
    if (!shown(table)) continue;
    const box = table.getBoundingClientRect();
    for (let parent = table.parentElement; parent && parent.tagName !== 'MAIN'; parent = parent.parentElement) {
      const overflowX = getComputedStyle(parent).overflowX;
      if (overflowX === 'visible') continue;
      if (parent.scrollWidth > parent.clientWidth + 1) problems.push(`wider than its box (${parent.scrollWidth} > ${parent.clientWidth} px, overflow-x ${overflowX}): ${label(table).slice(0, 60)}`);
      break;
    }
    const main = document.querySelector('main')!.getBoundingClientRect();
    if (box.right > main.right + 1) problems.push(`runs past the window's right edge (${Math.round(box.right)} > ${Math.round(main.right)} px): ${label(table).slice(0, 60)}`);
  }
  return problems;
}

export async function fitProblems(page: Page): Promise<string[]> {
  return page.evaluate(measure);
}
