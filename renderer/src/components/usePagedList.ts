/**
 * The one virtual list over paged rows (History, the Reconcile report, a batch's rows): the
 * virtualizer on a scrolling element, and the pages of the rows it shows asked for as it scrolls
 * (the store's `ensureRows`, see stores/pages.ts). `measured`: rows grow to fit (a wrapped error
 * or a long id) and are measured once drawn, never cut. Lists paged by cursor with no total (the
 * request inspector, webhook deliveries) grow with `LoadMore` over `createCursorPager` instead.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';

export function usePagedList({
  count,
  rowHeight,
  overscan,
  measured,
  ensureRows,
  pages,
}: {
  count: number;
  /** A row's height, or its estimate when `measured`. */
  rowHeight: number;
  overscan: number;
  measured: boolean;
  ensureRows: (first: number, last: number) => Promise<void>;
  /** The store's pages: a new set (a new query, a refresh) asks again for what is on screen. */
  pages: unknown;
}) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: () => rowHeight,
    overscan,
    // The resize observer's own size when it has one: reading the layout again for each row forced
    // a layout per row when many rows changed at once (issue 28).
    ...(measured ? { measureElement: (element: Element, entry: ResizeObserverEntry | undefined) => entry?.borderBoxSize?.[0]?.blockSize || element.getBoundingClientRect().height || rowHeight } : {}),
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    void ensureRows(first, last);
  }, [first, last, ensureRows, pages]);
  return { parent, virtualizer, items };
}
