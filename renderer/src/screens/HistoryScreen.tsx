/**
 * History: the journal with search and filters, a virtualised list fetched page by page (smooth
 * at 100,000 rows), and CSV export.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApprovalRequest, JournalTransaction, SearchQuery } from '../../../shared/api';
// From codes.ts, not shared/contract's index (which builds the zod schemas): History's chunk is
// fetched when the page is idle and should not bring zod with it (issue 28).
import { TRANSACTION_STATUSES } from '../../../shared/contract/codes';
import { Empty, ErrorNotice, Loading, Spinner, StatusBadge, journalStateLabel, shownState, statusLabel } from '../components/common';
import { describeFailedCode } from '../messages/errors';
import { formatCount, formatMoney, parseAmount } from '../format/money';
import { dayBoundIso, formatDateTime } from '../format/time';
import { t } from '../i18n';
import { useApprovals, useHistory, useProfiles, useUi, useWorkspace } from '../stores';
import { downloadCsv } from '../components/download';
import { usePagedList } from '../components/usePagedList';
import { HistoryUnsent } from './HistoryUnsent';

const ROW_HEIGHT = 56;

/**
 * The Status filter: every status a journal entry can show, the service's (`status:completed`)
 * and the console's own states of an entry it has no status for yet (`state:pending` "Sending…",
 * outcome unknown, refused by the API).
 */
const JOURNAL_STATES = ['pending', 'outcome_unknown', 'rejected'] as const;
const STATUS_OPTIONS = [
  ...TRANSACTION_STATUSES.map((status) => ({ value: `status:${status}`, label: () => statusLabel(status) })),
  ...JOURNAL_STATES.map((state) => ({ value: `state:${state}`, label: () => journalStateLabel(state) })),
];

interface Filters {
  text: string;
  /** '' or a STATUS_OPTIONS value. */
  status: string;
  kind: string;
  from: string;
  to: string;
  minAmount: string;
  maxAmount: string;
}
const EMPTY_FILTERS: Filters = { text: '', status: '', kind: '', from: '', to: '', minAmount: '', maxAmount: '' };

/** The date and amount filters: one labelled input each (ids as the E2E tests and labels know them). */
const FILTER_INPUTS = [
  { key: 'from', id: 'h-from', date: true },
  { key: 'to', id: 'h-to', date: true },
  { key: 'minAmount', id: 'h-min', date: false },
  { key: 'maxAmount', id: 'h-max', date: false },
] as const;

/**
 * The Status filter as the address writes it: the plain status or state (`status=failed`, as the
 * README documents; the two lists share no word), and read back from it, the older
 * `status=status:failed` too (links kept from before). Unknown: null.
 */
export function statusFromAddress(value: string): string | null {
  if (STATUS_OPTIONS.some((option) => option.value === value)) return value;
  if ((TRANSACTION_STATUSES as readonly string[]).includes(value)) return `status:${value}`;
  if ((JOURNAL_STATES as readonly string[]).includes(value)) return `state:${value}`;
  return null;
}
const statusInAddress = (status: string) => status.replace(/^(status|state):/, '');

/** The filters an address carries (`#/history?status=failed`): Back to History finds them again. */
function filtersFromParams(params: Readonly<Record<string, string>>): { filters: Filters; unknownStatus: string | null } {
  const filters = { ...EMPTY_FILTERS };
  for (const key of Object.keys(EMPTY_FILTERS) as (keyof Filters)[]) if (typeof params[key] === 'string') filters[key] = params[key];
  const status = filters.status ? statusFromAddress(filters.status) : '';
  const unknownStatus = status === null ? filters.status : null;
  return { filters: { ...filters, status: status ?? '' }, unknownStatus };
}

/** A filter that cannot be searched: which field, and why (shown at the field). */
type FilterErrors = Partial<Record<keyof Filters, string>>;

function toQuery(filters: Filters, currency: string): { query: SearchQuery } | { errors: FilterErrors } {
  const query: SearchQuery = {};
  if (filters.text.trim()) query.text = filters.text.trim();
  const [field, value] = filters.status.split(':');
  if (field === 'status') query.status = value as SearchQuery['status'];
  if (field === 'state') query.state = value as SearchQuery['state'];
  if (filters.kind) query.kind = filters.kind as SearchQuery['kind'];
  const from = filters.from ? dayBoundIso(filters.from, false) : undefined;
  const to = filters.to ? dayBoundIso(filters.to, true) : undefined;
  if (from) query.from = from;
  if (to) query.to = to;
  const errors: FilterErrors = {};
  // Days compare as text (YYYY-MM-DD): a From after To matches nothing, and says so.
  if (from && to && filters.from > filters.to) errors.from = t('history:fromAfterTo');
  for (const [key, text] of [['minAmount', filters.minAmount], ['maxAmount', filters.maxAmount]] as const) {
    if (!text.trim()) continue;
    const parsed = parseAmount(text, currency);
    if ('error' in parsed) errors[key] = t(key === 'minAmount' ? 'history:minError' : 'history:maxError', { error: parsed.error });
    else query[key] = parsed.amount;
  }
  if (query.minAmount !== undefined && query.maxAmount !== undefined && query.minAmount > query.maxAmount) {
    errors.minAmount = t('history:minAboveMax');
  }
  return Object.keys(errors).length > 0 ? { errors } : { query };
}

/** Filters apply as they change, once typing pauses this long (a select applies at the same pace). */
export const FILTER_DEBOUNCE_MS = 300;


function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p id={`${id}-error`} className="field-error" role="alert">
      {error}
    </p>
  ) : null;
}

function HistoryList() {
  const { t: tr } = useTranslation('history');
  const total = useHistory((s) => s.total ?? 0);
  const pages = useHistory((s) => s.pages);
  const ensureRows = useHistory((s) => s.ensureRows);
  const rowAt = useHistory((s) => s.rowAt);
  const openTransaction = useUi((s) => s.openTransaction);
  const { parent, virtualizer, items } = usePagedList({ count: total, rowHeight: ROW_HEIGHT, overscan: 12, measured: false, ensureRows, pages });
  return (
    <>
    <div className="history-head" aria-hidden="true">
      <span className="col-date">{tr('columns.created')}</span>
      <span className="col-kind">{tr('columns.kind')}</span>
      <span className="col-who">{tr('columns.who')}</span>
      <span className="col-ext">{tr('columns.externalId')}</span>
      <span className="col-amount">{tr('columns.amount')}</span>
      <span className="col-status">{tr('columns.status')}</span>
      <span className="col-code">{tr('columns.failedCode')}</span>
    </div>
    <div className="history-list" ref={parent} role="region" aria-label={tr('listLabel', { count: total, formatted: formatCount(total) })} tabIndex={0}>
      <div role="list" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const row = rowAt(item.index);
          return (
            <div role="listitem" key={item.key} className="history-row" style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
              {row ? (
                <button type="button" className="row-button" onClick={() => openTransaction(row.id)}>
                  {/* The name starts with what the row is and goes on with the visible cells (WCAG 2.5.3: the visible text is part of the name). */}
                  <span className="sr-only">{tr('rowLabel', { kind: tr(`rowKind.${row.kind}`), amount: formatMoney(row.amount, row.currency), who: `${row.customer.first_name} ${row.customer.last_name}`, status: row.status ? statusLabel(row.status) : journalStateLabel(shownState(row)) })}: </span>
                  <span className="col-date muted">{formatDateTime(row.createdAt)}</span>
                  <span className="col-kind">{tr(`kinds.${row.kind}`)}</span>
                  <span className="col-who" title={`${row.customer.first_name} ${row.customer.last_name} ${row.phoneNumber}`}>
                    <span className="who-name">{row.customer.first_name} {row.customer.last_name}</span>
                    <span className="who-phone mono muted small">{row.phoneNumber}</span>
                  </span>
                  <span className="col-ext" title={row.externalId ?? ''}>
                    <span className="mono muted small">{row.externalId ?? ''}</span>
                    <IdentityMark row={row} />
                    <ApprovalMark row={row} />
                  </span>
                  <span className="col-amount">{formatMoney(row.amount, row.currency)}</span>
                  <span className="col-status">
                    <StatusBadge status={row.status} state={shownState(row)} />
                  </span>
                  <span className="col-code mono small" title={describeFailedCode(row.failedCode) ?? ''}>{row.failedCode ?? ''}</span>
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
  const { t: tr } = useTranslation('history');
  // On a team workspace the list is the team's, whichever desktop wrote it. A console started on a
  // fixed workspace store (a host that cannot change it) says so through its approvals only.
  const approvalsAvailable = useApprovals((s) => s.available);
  const onWorkspace = useWorkspace((s) => s.status?.store === 'workspace') || approvalsAvailable;
  // Which payouts an approval sent (ApprovalMark): the approvals this login reads, once.
  const approvalsIdle = useApprovals((s) => s.status === 'idle');
  const loadApprovals = useApprovals((s) => s.load);
  useEffect(() => {
    if (onWorkspace && approvalsIdle) void loadApprovals();
  }, [onWorkspace, approvalsIdle, loadApprovals]);
  const status = useHistory((s) => s.status);
  const error = useHistory((s) => s.error);
  const total = useHistory((s) => s.total);
  const exporting = useHistory((s) => s.exporting);
  const search = useHistory((s) => s.search);
  const exportCsv = useHistory((s) => s.exportCsv);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const params = useUi((s) => s.params);
  const setParams = useUi((s) => s.setParams);
  const storedQuery = useHistory((s) => s.query);
  const [fromAddress] = useState(() => filtersFromParams(params));
  const [filters, setFilters] = useState<Filters>(fromAddress.filters);
  const [filterErrors, setFilterErrors] = useState<FilterErrors>(() => {
    const built = toQuery(fromAddress.filters, currency);
    return { ...('errors' in built ? built.errors : {}), ...(fromAddress.unknownStatus !== null ? { status: t('history:unknownStatus', { value: fromAddress.unknownStatus }) } : {}) };
  });
  // An unknown status from the address is dropped (every status is shown, and it says so): the others stop the search.
  const invalid = Object.keys(filterErrors).some((key) => key !== 'status');
  /** The filters last sent, so a pause in typing that changed nothing does not search again. */
  const applied = useRef<string | null>(null);

  // The list shows what the form says: a first search, or again when the address brought other filters.
  const opened = useRef({ filters, storedQuery });
  useEffect(() => {
    const built = toQuery(opened.current.filters, currency);
    const query = 'errors' in built ? {} : built.query;
    const key = JSON.stringify(query);
    if (status === 'idle' || (applied.current === null && JSON.stringify(opened.current.storedQuery) !== key)) {
      applied.current = key;
      void search(query);
    }
    applied.current ??= key;
  }, [status, search, currency]);
  // The filters go into the address (replacing it: typing is not a step Back walks through).
  useEffect(() => {
    setParams(Object.fromEntries(Object.entries({ ...filters, status: statusInAddress(filters.status) }).filter(([, value]) => value !== '')));
  }, [filters, setParams]);

  function apply(next: Filters): void {
    const built = toQuery(next, currency);
    if ('errors' in built) {
      setFilterErrors(built.errors);
      return;
    }
    setFilterErrors({});
    const key = JSON.stringify(built.query);
    if (key === applied.current) return;
    applied.current = key;
    void search(built.query);
  }

  // Filters apply as they change, debounced: no Search press needed.
  const latest = useRef(apply);
  latest.current = apply;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    const timer = setTimeout(() => latest.current(filters), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [filters]);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    apply(filters);
  }
  async function runExport() {
    const file = await exportCsv();
    if (file) downloadCsv(file.filename, file.csv);
  }
  /** An invalid field says so and names its message (read with the field). */
  const fieldErrorProps = (key: keyof Filters) => {
    const id = FILTER_INPUTS.find((input) => input.key === key)?.id ?? `h-${key}`;
    return filterErrors[key] ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
  };
  const set = (key: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setFilters((f) => ({ ...f, [key]: e.target.value }));

  return (
    <section className="screen wide" aria-labelledby="history-title">
      <header className="screen-head">
        <h1 id="history-title">{tr('title')}</h1>
        <p className="muted">{tr(onWorkspace ? 'introWorkspace' : 'intro')}</p>
      </header>
      <form className="card filters" onSubmit={submit} aria-label={tr('filtersLabel')}>
        <div className="field grow">
          <label htmlFor="h-text">{tr('search')}</label>
          <input id="h-text" type="search" placeholder={tr('searchPlaceholder')} value={filters.text} onChange={set('text')} />
        </div>
        <div className="field">
          <label htmlFor="h-status">{tr('status')}</label>
          <select id="h-status" value={filters.status} onChange={set('status')} {...fieldErrorProps('status')}>
            <option value="">{tr('any')}</option>
            {STATUS_OPTIONS.map((option) => <option key={option.value} value={option.value}>{option.label()}</option>)}
          </select>
          <FieldError id="h-status" error={filterErrors.status} />
        </div>
        <div className="field">
          <label htmlFor="h-kind">{tr('kind')}</label>
          <select id="h-kind" value={filters.kind} onChange={set('kind')}>
            <option value="">{tr('any')}</option>
            <option value="payment">{tr('kinds.payment')}</option>
            <option value="payout">{tr('kinds.payout')}</option>
          </select>
        </div>
        {FILTER_INPUTS.map((input) => (
          <div key={input.key} className={input.date ? 'field' : 'field narrow'}>
            <label htmlFor={input.id}>{tr(input.key)}</label>
            <input id={input.id} {...(input.date ? { type: 'date' } : { inputMode: 'decimal' as const })} value={filters[input.key]} onChange={set(input.key)} {...fieldErrorProps(input.key)} />
            <FieldError id={input.id} error={filterErrors[input.key]} />
          </div>
        ))}
        <div className="filter-actions">
          <button type="submit" className="secondary">{tr('searchNow')}</button>
          <button type="button" className="secondary" onClick={() => setFilters(EMPTY_FILTERS)}>{tr('clear')}</button>
        </div>
      </form>
      {/* On a workspace, the requests waiting for approval: above the transactions, never among them. */}
      {approvalsAvailable && !invalid ? <HistoryUnsent query={storedQuery} /> : null}
      <div className="list-bar">
        {/* The results of the previous filters are not shown under a filter that cannot be searched. */}
        <span aria-live="polite">{invalid ? tr('fixFilters') : total === null ? '' : tr('count', { count: total, formatted: formatCount(total) })}</span>
        <button type="button" className="secondary" onClick={() => void runExport()} disabled={invalid || !total || (exporting !== null && !exporting.done)}>
          {tr('exportCsv')}
        </button>
      </div>
      {exporting && !exporting.done ? (
        <div className="notice notice-info" role="status">
          <Spinner label={tr('exporting')} /> {tr('exportingRows', { rows: exporting.rows === null ? '' : formatCount(exporting.rows) })}
        </div>
      ) : null}
      {exporting?.done && exporting.filename ? <div className="notice notice-info" role="status">{tr('exported', { rows: formatCount(exporting.rows ?? 0), filename: exporting.filename })}</div> : null}
      {exporting?.error ? <ErrorNotice failure={exporting.error} title={tr('exportFailed')} /> : null}
      {status === 'loading' ? <Loading label={tr('loading')} /> : null}
      {status === 'error' && error ? <ErrorNotice failure={error} /> : null}
      {!invalid && status === 'ready' && total === 0 ? <Empty>{tr('empty')}</Empty> : null}
      {!invalid && status === 'ready' && total ? <HistoryList /> : null}
    </section>
  );
}

/**
 * What the status alone does not say (issue 23): the entry adopted a payout sent earlier under its
 * external id (and, worse, one that is not what it asked), or it was refused and a later request
 * with the same id paid it. The timeline says it in full.
 */
function IdentityMark({ row }: { row: JournalTransaction }) {
  const { t: tr } = useTranslation('history');
  if (row.answerDiffers) return <span className="row-mark row-mark-warn" title={tr('answerDiffersHint')} data-testid="history-answer-differs">{tr('answerDiffers')}</span>;
  if (row.adoptedDiffers) return <span className="row-mark row-mark-warn" title={tr('alreadySentDiffersHint')} data-testid="history-adopted-differs">{tr('alreadySentDiffers')}</span>;
  if (row.alreadySent) return <span className="row-mark" data-testid="history-already-sent">{tr('alreadySent')}</span>;
  if (row.paidLater) return <span className="row-mark" data-testid="history-paid-later">{tr('paidLater')}</span>;
  return null;
}

/** The approved request a History row was sent under: a payout's spent by its entry, a batch row's its batch's. */
export function approvalOf(row: Pick<JournalTransaction, 'id' | 'kind' | 'batch'>, known: readonly ApprovalRequest[]): ApprovalRequest | null {
  if (row.kind !== 'payout') return null;
  return known.find((r) => r.state === 'approved' && (r.subject === 'payout' ? r.spentByEntry === row.id : r.batchId !== null && r.batchId === row.batch?.batchId)) ?? null;
}

/**
 * A payout that needed approval (issue 37 item 1): which request approved it and that it is sent,
 * from the approvals this login can read (asked, decided, waiting for them; an admin's everything
 * waiting). A payout's request is spent by its entry; a batch row's by its batch's request.
 */
function ApprovalMark({ row }: { row: JournalTransaction }) {
  const { t: tr } = useTranslation('history');
  const request = useApprovals((s) => (s.available ? approvalOf(row, [...s.mine, ...s.decided, ...s.everyone, ...s.forMe]) : null));
  if (!request) return null;
  return (
    <span className="row-mark" data-testid="history-approved" title={tr('approvedHint', { id: request.id, by: request.decidedBy ?? '' })}>
      {tr('approved', { id: request.id })}
    </span>
  );
}
