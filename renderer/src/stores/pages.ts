/**
 * The one way a long list is fetched: page by page, as the virtual list shows it (History's
 * journal, a Reconcile report, a batch's rows). The pages live in the screen's store (`total`,
 * `pages`, `generation`, so a change re-renders); a new query bumps the generation, and a page
 * answered for an older one is dropped. `refreshShown` fetches again only the pages on screen,
 * keeping their rows until the new ones arrive (no flash); `patch` replaces rows the store holds.
 * Lists the service pages by cursor (the request inspector, webhook deliveries) take
 * `createCursorPager` below, with the same "load more" control on both screens.
 */
import type { ApiFailure, Result } from '../../../shared/api';

export interface PagedRows<Row> {
  /** Rows the query keeps (null until the first page answers). */
  total: number | null;
  /** Page index → its rows; a page not fetched yet is absent. */
  pages: Record<number, Row[]>;
  /** Bumped on every new query or refresh, so late pages of an old query are dropped. */
  generation: number;
}

export const emptyPages = <Row,>(): PagedRows<Row> => ({ total: null, pages: {}, generation: 0 });

export interface Pager<Row> {
  /** A new query: the pages are dropped and page 0 fetched (`total` stays until it answers). */
  restart(): Promise<void>;
  /** The rows `first`..`last` are on screen: fetch the pages of them not held yet. */
  ensureRows(first: number, last: number): Promise<void>;
  rowAt(index: number): Row | undefined;
  /** The pages on screen again (the rest are dropped: they are fetched when scrolled to). */
  refreshShown(): Promise<void>;
  /** Rows the store holds replaced in place (`replace` answers the new row, or undefined to keep it). */
  patch(replace: (row: Row) => Row | undefined): void;
}

export function createPager<Row>(options: {
  pageSize: number;
  get: () => PagedRows<Row>;
  set: (patch: Partial<PagedRows<Row>>) => void;
  /** One page of the current query; null when there is nothing to ask (no open item). */
  fetch: (offset: number, limit: number) => Promise<Result<{ total: number; rows: Row[] }>> | null;
  /** A page answered (`ok`) or failed: the screen's own status and error. */
  answered?: (failure: ApiFailure | null) => void;
}): Pager<Row> {
  const { pageSize, get, set } = options;
  const inFlight = new Set<string>();
  /** The rows on screen, so a refresh fetches only those pages (not every page ever scrolled past). */
  let onScreen: [number, number] = [0, pageSize - 1];
  const pagesOf = ([first, last]: [number, number]) => {
    const pages: number[] = [];
    for (let page = Math.floor(first / pageSize); page <= Math.floor(last / pageSize); page += 1) pages.push(page);
    return pages;
  };

  async function fetchPage(page: number, generation: number): Promise<Row[] | null> {
    const key = `${generation}:${page}`;
    if (inFlight.has(key)) return null;
    const asked = options.fetch(page * pageSize, pageSize);
    if (!asked) return null;
    inFlight.add(key);
    try {
      const result = await asked;
      if (generation !== get().generation) return null;
      options.answered?.(result.ok ? null : result.error);
      if (!result.ok) return null;
      set({ total: result.value.total });
      return result.value.rows;
    } finally {
      inFlight.delete(key);
    }
  }

  /**
   * A page fetched again keeps the row objects that did not change, so a memoised row is not drawn
   * again (the batch table while sending: issue 28). Rows are plain JSON, never mutated in place.
   */
  function keepUnchanged(held: Row[] | undefined, rows: Row[]): Row[] {
    if (!held) return rows;
    const kept = rows.map((row, index) => {
      const old = held[index];
      return old !== undefined && JSON.stringify(old) === JSON.stringify(row) ? old : row;
    });
    // Nothing changed: the page itself is kept, so the table is not drawn again at all.
    return kept.length === held.length && kept.every((row, index) => row === held[index]) ? held : kept;
  }

  async function fetchInto(page: number, generation: number): Promise<void> {
    const rows = await fetchPage(page, generation);
    if (rows && generation === get().generation) set({ pages: { ...get().pages, [page]: rows } });
  }

  return {
    async restart() {
      const generation = get().generation + 1;
      onScreen = [0, pageSize - 1];
      set({ generation, pages: {} });
      await fetchInto(0, generation);
    },
    async ensureRows(first, last) {
      onScreen = [first, Math.max(first, last)];
      const { generation, pages, total } = get();
      if (total === null) return;
      const lastPage = Math.floor(Math.min(last, Math.max(total - 1, 0)) / pageSize);
      const wanted: number[] = [];
      for (let page = Math.floor(first / pageSize); page <= lastPage; page += 1) if (!pages[page]) wanted.push(page);
      await Promise.all(wanted.map((page) => fetchInto(page, generation)));
    },
    rowAt(index) {
      return get().pages[Math.floor(index / pageSize)]?.[index % pageSize];
    },
    async refreshShown() {
      const generation = get().generation + 1;
      set({ generation });
      const fresh: Record<number, Row[]> = {};
      await Promise.all(
        pagesOf(onScreen).map(async (page) => {
          const rows = await fetchPage(page, generation);
          if (rows) fresh[page] = keepUnchanged(get().pages[page], rows);
        }),
      );
      if (generation !== get().generation) return;
      const held = get().pages;
      const same = Object.keys(fresh).length === Object.keys(held).length && Object.entries(fresh).every(([page, rows]) => held[Number(page)] === rows);
      if (!same) set({ pages: fresh });
    },
    patch(replace) {
      const pages = get().pages;
      let changed = false;
      const next: Record<number, Row[]> = {};
      for (const [page, rows] of Object.entries(pages)) {
        let copy: Row[] | null = null;
        rows.forEach((row, index) => {
          const replaced = replace(row);
          if (replaced === undefined) return;
          copy ??= [...rows];
          copy[index] = replaced;
        });
        next[Number(page)] = copy ?? rows;
        changed ||= copy !== null;
      }
      if (changed) set({ pages: next });
    },
  };
}

/**
 * The same lists when the service pages them by cursor and not by offset (the request inspector,
 * the webhook deliveries): newest first, shown with a "load more" control rather than a virtual
 * list, since there is no total to size one. The rows live in the screen's store as
 * `rows`/`nextCursor` (named as the store likes through `get`/`set`).
 */
export interface CursorRows<Row> {
  rows: Row[];
  /** The next, older page's cursor; null when the oldest row is held. */
  nextCursor: string | null;
}

export interface CursorPager<Row> {
  /** A new query: the first page replaces the rows. */
  restart(): Promise<void>;
  /** The next older page appended (a row already held is not shown twice). */
  more(): Promise<void>;
  /** Every row held asked again in one page (a push or a poll), so paging further is kept. */
  refresh(): Promise<void>;
  /** Rows main pushed, newest first, go on top. */
  prepend(rows: readonly Row[]): void;
}

export function createCursorPager<Row, Page extends { rows: Row[]; nextCursor: string | null }>(options: {
  pageSize: number;
  /** The most rows the store holds; older ones fall off the end. */
  maxHeld: number;
  /** The largest page the channel takes (a refresh asks for what is held, up to this). */
  maxLimit: number;
  get: () => CursorRows<Row>;
  set: (patch: Partial<CursorRows<Row>>) => void;
  idOf: (row: Row) => string;
  fetch: (cursor: string | undefined, limit: number) => Promise<Result<Page>>;
  /** Each answer, with what asked for it: the screen's own status and error (and whatever else the page carries). */
  answered?: (result: Result<Page>, asked: 'restart' | 'more' | 'refresh') => void;
}): CursorPager<Row> {
  const { pageSize, maxHeld, get, set, idOf } = options;
  /**
   * One call at a time, in the order asked: a "load more" answered while a poll's refresh is out
   * would otherwise leave a gap (the refresh's cursor is not the one the older page followed).
   */
  let queue: Promise<void> = Promise.resolve();
  const inTurn = (work: () => Promise<void>) => (queue = queue.then(work, work));
  const fresh = (held: readonly Row[], rows: readonly Row[]) => {
    const known = new Set(held.map(idOf));
    return rows.filter((row) => !known.has(idOf(row)));
  };

  async function ask(asked: 'restart' | 'more' | 'refresh', cursor: string | undefined, limit: number): Promise<Page | null> {
    const result = await options.fetch(cursor, limit);
    options.answered?.(result, asked);
    return result.ok ? result.value : null;
  }

  return {
    restart: () =>
      inTurn(async () => {
        const page = await ask('restart', undefined, pageSize);
        if (page) set({ rows: page.rows.slice(0, maxHeld), nextCursor: page.nextCursor });
      }),
    more: () =>
      inTurn(async () => {
        const cursor = get().nextCursor;
        if (cursor === null) return;
        const page = await ask('more', cursor, pageSize);
        if (page) set({ rows: [...get().rows, ...fresh(get().rows, page.rows)].slice(0, maxHeld), nextCursor: page.nextCursor });
      }),
    refresh: () =>
      inTurn(async () => {
        const page = await ask('refresh', undefined, Math.min(Math.max(get().rows.length, pageSize), options.maxLimit));
        // A list that cannot be read shows its error, not rows of an engine that may have gone.
        set(page ? { rows: page.rows.slice(0, maxHeld), nextCursor: page.nextCursor } : { rows: [], nextCursor: null });
      }),
    prepend(rows) {
      const added = fresh(get().rows, rows);
      if (added.length > 0) set({ rows: [...added, ...get().rows].slice(0, maxHeld) });
    },
  };
}
