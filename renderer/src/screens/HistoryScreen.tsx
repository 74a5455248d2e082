/**
 * History: the journal with search and filters, a virtualised list fetched page by page (smooth
 * at 100,000 rows), and CSV export.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import type { SearchQuery } from '../../../shared/api';
import { TRANSACTION_STATUSES } from '../../../shared/contract';
import { Empty, ErrorNotice, Loading, Spinner, StatusBadge } from '../components/common';
import { formatCount, formatMoney, parseAmount } from '../format/money';
import { dayBoundIso, formatDateTime } from '../format/time';
import { useHistory, useProfiles, useUi } from '../stores';

const ROW_HEIGHT = 56;

interface Filters {
  text: string;
  status: string;
  kind: string;
  from: string;
  to: string;
  minAmount: string;
  maxAmount: string;
}
const EMPTY_FILTERS: Filters = { text: '', status: '', kind: '', from: '', to: '', minAmount: '', maxAmount: '' };

function toQuery(filters: Filters, currency: string): { query: SearchQuery } | { error: string } {
  const query: SearchQuery = {};
  if (filters.text.trim()) query.text = filters.text.trim();
  if (filters.status) query.status = filters.status as SearchQuery['status'];
  if (filters.kind) query.kind = filters.kind as SearchQuery['kind'];
  const from = filters.from ? dayBoundIso(filters.from, false) : undefined;
  const to = filters.to ? dayBoundIso(filters.to, true) : undefined;
  if (from) query.from = from;
  if (to) query.to = to;
  for (const [key, text] of [['minAmount', filters.minAmount], ['maxAmount', filters.maxAmount]] as const) {
    if (!text.trim()) continue;
    const parsed = parseAmount(text, currency);
    if ('error' in parsed) return { error: `${key === 'minAmount' ? 'Minimum' : 'Maximum'} amount ${parsed.error}.` };
    query[key] = parsed.amount;
  }
  if (query.minAmount !== undefined && query.maxAmount !== undefined && query.minAmount > query.maxAmount) {
    return { error: 'The minimum amount is above the maximum amount.' };
  }
  return { query };
}

function downloadCsv(filename: string, csv: string) {
  if (typeof URL.createObjectURL !== 'function') return;
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function HistoryList() {
  const total = useHistory((s) => s.total ?? 0);
  const pages = useHistory((s) => s.pages);
  const ensureRows = useHistory((s) => s.ensureRows);
  const rowAt = useHistory((s) => s.rowAt);
  const openTransaction = useUi((s) => s.openTransaction);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    void ensureRows(first, last);
  }, [first, last, ensureRows, pages]);
  return (
    <>
    <div className="history-head" aria-hidden="true">
      <span className="col-date">Created</span>
      <span className="col-kind">Kind</span>
      <span className="col-who">Customer</span>
      <span className="col-ext">External id</span>
      <span className="col-amount">Amount</span>
      <span className="col-status">Status</span>
    </div>
    <div className="history-list" ref={parent} role="region" aria-label={`Transactions, ${formatCount(total)} rows`} tabIndex={0}>
      <div role="list" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const row = rowAt(item.index);
          return (
            <div role="listitem" key={item.key} className="history-row" style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
              {row ? (
                <button type="button" className="row-button" onClick={() => openTransaction(row.id)} aria-label={`Open ${row.kind} of ${formatMoney(row.amount, row.currency)} to ${row.customer.first_name} ${row.customer.last_name}, ${row.status ?? row.state}`}>
                  <span className="col-date muted">{formatDateTime(row.createdAt)}</span>
                  <span className="col-kind">{row.kind}</span>
                  <span className="col-who">
                    {row.customer.first_name} {row.customer.last_name}
                    <span className="mono muted small"> {row.phoneNumber}</span>
                  </span>
                  <span className="col-ext mono muted small">{row.externalId ?? ''}</span>
                  <span className="col-amount">{formatMoney(row.amount, row.currency)}</span>
                  <span className="col-status">
                    <StatusBadge status={row.status} state={row.state} />
                  </span>
                </button>
              ) : (
                <div className="row-placeholder" aria-hidden="true" />
              )}
            </div>
          );
        })}
      </div>
    </div>
    </>
  );
}

export function HistoryScreen() {
  const status = useHistory((s) => s.status);
  const error = useHistory((s) => s.error);
  const total = useHistory((s) => s.total);
  const exporting = useHistory((s) => s.exporting);
  const search = useHistory((s) => s.search);
  const exportCsv = useHistory((s) => s.exportCsv);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const [filters, setFilters] = useState<Filters>(EMPTY_FILTERS);
  const [filterError, setFilterError] = useState<string | null>(null);

  useEffect(() => {
    if (status === 'idle') void search({});
  }, [status, search]);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const built = toQuery(filters, currency);
    if ('error' in built) {
      setFilterError(built.error);
      return;
    }
    setFilterError(null);
    void search(built.query);
  }
  async function runExport() {
    const file = await exportCsv();
    if (file) downloadCsv(file.filename, file.csv);
  }
  const set = (key: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setFilters((f) => ({ ...f, [key]: e.target.value }));

  return (
    <section className="screen wide" aria-labelledby="history-title">
      <header className="screen-head">
        <h1 id="history-title">History</h1>
        <p className="muted">Every transaction this console created, looked up or verified.</p>
      </header>
      <form className="card filters" onSubmit={submit} aria-label="Search history">
        <div className="field grow">
          <label htmlFor="h-text">Search</label>
          <input id="h-text" type="search" placeholder="Transaction id, external id, phone or name" value={filters.text} onChange={set('text')} />
        </div>
        <div className="field">
          <label htmlFor="h-status">Status</label>
          <select id="h-status" value={filters.status} onChange={set('status')}>
            <option value="">Any</option>
            {TRANSACTION_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="h-kind">Kind</label>
          <select id="h-kind" value={filters.kind} onChange={set('kind')}>
            <option value="">Any</option>
            <option value="payment">Payment</option>
            <option value="payout">Payout</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="h-from">From</label>
          <input id="h-from" type="date" value={filters.from} onChange={set('from')} />
        </div>
        <div className="field">
          <label htmlFor="h-to">To</label>
          <input id="h-to" type="date" value={filters.to} onChange={set('to')} />
        </div>
        <div className="field narrow">
          <label htmlFor="h-min">Min amount</label>
          <input id="h-min" inputMode="decimal" value={filters.minAmount} onChange={set('minAmount')} />
        </div>
        <div className="field narrow">
          <label htmlFor="h-max">Max amount</label>
          <input id="h-max" inputMode="decimal" value={filters.maxAmount} onChange={set('maxAmount')} />
        </div>
        <div className="filter-actions">
          <button type="submit" className="primary">Search</button>
          <button type="button" className="secondary" onClick={() => { setFilters(EMPTY_FILTERS); setFilterError(null); void search({}); }}>Clear</button>
        </div>
      </form>
      {filterError ? <div className="notice notice-error" role="alert">{filterError}</div> : null}
      <div className="list-bar">
        <span aria-live="polite">{total === null ? '' : `${formatCount(total)} transaction${total === 1 ? '' : 's'}`}</span>
        <button type="button" className="secondary" onClick={() => void runExport()} disabled={!total || (exporting !== null && !exporting.done)}>
          Export CSV
        </button>
      </div>
      {exporting && !exporting.done ? (
        <div className="notice notice-info" role="status">
          <Spinner label="Exporting CSV" /> Exporting {exporting.rows == null ? '' : formatCount(exporting.rows)} rows…
        </div>
      ) : null}
      {exporting?.done && exporting.filename ? <div className="notice notice-info" role="status">Exported {exporting.rows == null ? '' : formatCount(exporting.rows)} rows to {exporting.filename}.</div> : null}
      {exporting?.error ? <ErrorNotice failure={exporting.error} title="Export did not work." /> : null}
      {status === 'loading' ? <Loading label="Loading history" /> : null}
      {status === 'error' && error ? <ErrorNotice failure={error} /> : null}
      {status === 'ready' && total === 0 ? <Empty>No transactions match. Create a payment, or clear the filters.</Empty> : null}
      {status === 'ready' && total ? <HistoryList /> : null}
    </section>
  );
}
