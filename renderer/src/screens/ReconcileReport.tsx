/**
 * The report of a reconciliation: one card per category with count and totals (a card filters
 * the rows), the rows in a virtual list fetched page by page (each opens its transaction), Verify
 * of the rows still processing, and CSV export.
 */
import { useTranslation } from 'react-i18next';
import { DUPLICATE_NOTE, RECONCILE_CATEGORIES, type ReconcileCategory, type ReconciliationRow } from '../../../shared/api/reconcile';
import { isListedStatus } from '../../../shared/contract/codes';
import { Empty, ErrorNotice, statusLabel, storedProfileName } from '../components/common';
import { formatCount, formatMoney } from '../format/money';
import { moneyInCell } from '../format/wrap';
import { formatDateTime } from '../format/time';
import { currentLanguage } from '../i18n';
import { useReconcile, useUi } from '../stores';
import { downloadCsv } from '../components/download';
import { ColumnHeader, useColumnWidths, type ColumnSpec } from '../components/columns';
import { usePagedList } from '../components/usePagedList';

const ROW_HEIGHT = 44;
type ReportColumnKey = 'row' | 'externalId' | 'kind' | 'amount' | 'expected' | 'category' | 'serviceStatus' | 'serviceAmount' | 'detail';
/** The report's columns (keys of `reconcile:columns`), sharing the window's width, each resizable. */
const REPORT_COLUMNS: readonly ColumnSpec[] = [
  { key: 'row', track: 'minmax(64px, 0.5fr)', min: 48 },
  { key: 'externalId', track: 'minmax(150px, 2fr)', min: 90 },
  { key: 'kind', track: 'minmax(72px, 0.6fr)', min: 56 },
  { key: 'amount', track: 'minmax(100px, 0.9fr)', min: 72 },
  { key: 'expected', track: 'minmax(80px, 0.7fr)', min: 56 },
  { key: 'category', track: 'minmax(150px, 1.3fr)', min: 90 },
  { key: 'serviceStatus', track: 'minmax(90px, 0.8fr)', min: 60 },
  { key: 'serviceAmount', track: 'minmax(100px, 0.9fr)', min: 72 },
  { key: 'detail', track: 'minmax(120px, 1.6fr)', min: 80 },
];


/** The file's columns Paydesk read past, named so nothing in the file is dropped unsaid. */
export function IgnoredColumns({ columns }: { columns: readonly string[] }) {
  const { t } = useTranslation('reconcile');
  if (columns.length === 0) return null;
  return (
    <p className="muted small reconcile-ignored" data-testid="reconcile-ignored">
      {t('report.ignored', { count: columns.length, columns: columns.join(', ') })}
    </p>
  );
}

function useCategoryLabel() {
  const { t } = useTranslation('reconcile');
  const minutes = useReconcile((s) => s.current?.processingMinutes ?? 0);
  return (category: ReconcileCategory) => t(`category.${category}`, { minutes: formatCount(minutes) });
}

function CategoryCards() {
  const { t } = useTranslation('reconcile');
  const current = useReconcile((s) => s.current)!;
  const selected = useReconcile((s) => s.category);
  const setCategory = useReconcile((s) => s.setCategory);
  const label = useCategoryLabel();
  return (
    <div className="reconcile-cards" role="group" aria-label={t('columns.category')}>
      <button type="button" className="reconcile-card" aria-pressed={selected === undefined} onClick={() => void setCategory(undefined)}>
        <span className="reconcile-card-title">{t('report.all')}</span>
        <span className="reconcile-card-count">{formatCount(current.totalRows + current.categories.unknown_to_merchant.count)}</span>
      </button>
      {RECONCILE_CATEGORIES.map((category) => {
        const total = current.categories[category];
        return (
          <button
            key={category}
            type="button"
            className={`reconcile-card cat-${category}`}
            aria-pressed={selected === category}
            data-category={category}
            onClick={() => void setCategory(category)}
          >
            <span className="reconcile-card-title">{label(category)}</span>
            <span className="reconcile-card-count">{formatCount(total.count)}</span>
            <span className="reconcile-card-amount">{formatMoney(total.amount, current.currency)}</span>
            {category === 'amount_differs' && total.count > 0 ? (
              <span className="muted small">{t('report.serviceAmount', { amount: formatMoney(total.serviceAmount, current.currency) })}</span>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}

const SERVICE_STATUSES = ['initiated', 'processing', 'completed', 'failed', 'cancelled'] as const;

/** The note of a row in the user's language; a service error stays as the service wrote it (code: message). */
export function reconcileNote(detail: string | null, t: (key: string, options?: Record<string, string>) => string): string {
  if (detail === null) return '';
  const verified = /^verified: (\w+)$/.exec(detail)?.[1];
  const status = SERVICE_STATUSES.find((s) => s === verified);
  if (status) return t('detail.verified', { status: t(`serviceStatus.${status}`) });
  if (detail.startsWith('PAYOUT_LOOKUP_UNAVAILABLE:')) return t('detail.payoutLookup');
  if (detail.startsWith('from the journal:')) return t('detail.fromJournal');
  if (detail.startsWith('TEAM_JOURNAL:')) return t('detail.teamJournal');
  if (detail.startsWith('VERIFY_UNAVAILABLE:')) return t('detail.verifyUnavailable');
  const earlier = DUPLICATE_NOTE.exec(detail)?.[1];
  if (earlier) return t('detail.duplicateOf', { row: earlier });
  return detail;
}

function useDetailText() {
  const { t } = useTranslation('reconcile');
  return (detail: string | null): string => reconcileNote(detail, (key, options) => String(t(key as never, options as never)));
}

function RowLine({ row }: { row: ReconciliationRow }) {
  const { t } = useTranslation('reconcile');
  const detailText = useDetailText();
  const label = useCategoryLabel();
  const openTransaction = useUi((s) => s.openTransaction);
  const cells = (
    <>
      <span className="rc-col-row mono muted">{row.row === null ? t('report.notInFile') : formatCount(row.row)}</span>
      <span className="rc-col-ext mono" title={row.externalId ?? undefined}>{row.externalId ?? '—'}</span>
      <span className="rc-col-kind">{t(`kind.${row.kind}`)}</span>
      <span className="rc-col-amount">{row.amount === null ? '—' : moneyInCell(formatMoney(row.amount, row.currency))}</span>
      <span className="rc-col-expected muted">{row.expectedStatus ?? ''}</span>
      <span className="rc-col-cat">{row.category ? <span className={`cat-pill cat-${row.category}`}>{label(row.category)}</span> : null}</span>
      <span className="rc-col-status">{row.serviceStatus ? (isListedStatus(row.serviceStatus) ? t(`serviceStatus.${row.serviceStatus}`) : statusLabel(row.serviceStatus)) : ''}</span>
      <span className="rc-col-amount">{row.serviceAmount === null ? '' : moneyInCell(formatMoney(row.serviceAmount, row.currency))}</span>
      <span className="rc-col-detail muted small" title={detailText(row.detail)}>{detailText(row.detail)}</span>
    </>
  );
  if (!row.journalId) return <div className="rc-line">{cells}</div>;
  return (
    <button type="button" className="rc-line" onClick={() => openTransaction(row.journalId!)}>
      {/* What the button does, then the visible cells: the visible text is part of the name (WCAG 2.5.3). */}
      <span className="sr-only">{t('report.open', { row: row.row ?? row.externalId ?? '' })}: </span>
      {cells}
    </button>
  );
}

function ReportRows() {
  const { t } = useTranslation('reconcile');
  const total = useReconcile((s) => s.total ?? 0);
  const pages = useReconcile((s) => s.pages);
  const ensureRows = useReconcile((s) => s.ensureRows);
  const rowAt = useReconcile((s) => s.rowAt);
  const widths = useColumnWidths('reconcile-report', REPORT_COLUMNS);
  // Rows are measured: a long external id wraps onto a second line rather than being cut.
  const { parent, virtualizer, items } = usePagedList({ count: total, rowHeight: ROW_HEIGHT, overscan: 12, measured: true, ensureRows, pages });
  if (total === 0) return <Empty>{t('report.empty')}</Empty>;
  return (
    <>
      {/* The rows are a list (each one a button); the head names the columns and resizes them. */}
      <div className="rc-line rc-head" style={widths.style}>
        {REPORT_COLUMNS.map((column) => (
          <ColumnHeader key={column.key} column={column} widths={widths} label={t(`columns.${column.key as ReportColumnKey}`)} role="none" className={column.key === 'amount' || column.key === 'serviceAmount' ? 'rc-col-amount' : undefined} />
        ))}
      </div>
      <div className="rc-list" style={widths.style} ref={parent} role="region" aria-label={t('report.rowsLabel', { rows: formatCount(total) })} tabIndex={0}>
        <div role="list" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            return (
              <div role="listitem" key={item.key} ref={virtualizer.measureElement} data-index={item.index} className="rc-item" style={{ position: 'absolute', top: 0, left: 0, right: 0, minHeight: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
                {row ? <RowLine row={row} /> : <div className="row-placeholder" aria-hidden="true" />}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

export function ReconcileReport() {
  const { t } = useTranslation('reconcile');
  const { t: tc } = useTranslation();
  const current = useReconcile((s) => s.current)!;
  const exported = useReconcile((s) => s.exported);
  const failure = useReconcile((s) => s.failure);
  const verify = useReconcile((s) => s.verify);
  const exportCsv = useReconcile((s) => s.exportCsv);
  const processing = current.categories.still_processing.count + current.categories.processing_recent.count;
  async function runExport() {
    const file = await exportCsv(currentLanguage());
    if (file) downloadCsv(file.filename, file.csv);
  }
  return (
    <section className="card reconcile-report" aria-labelledby="rc-report-title">
      <h2 id="rc-report-title">{t('report.title', { file: current.fileName })}</h2>
      <p className="muted small">
        {t('report.meta', { profile: storedProfileName(current.profileId, current.profileName), environment: tc(`environment.${current.environment}`), date: formatDateTime(current.createdAt) })}
        {' · '}
        {current.period
          ? t('report.period', {
              from: formatDateTime(current.period.from),
              to: formatDateTime(current.period.to),
              source: current.period.source === 'file' ? t('report.periodFile') : t('report.periodPicked'),
            })
          : t('report.noPeriod')}
      </p>
      <IgnoredColumns columns={current.ignoredColumns} />
      <CategoryCards />
      <div className="list-bar">
        <span>
          {current.status === 'done' && processing > 0 ? (
            <>
              <button type="button" className="secondary" onClick={() => void verify()}>{t('report.verify')}</button>{' '}
              <span className="muted small">{t('report.verifyHelp', { rows: formatCount(processing) })}</span>
            </>
          ) : null}
        </span>
        <button type="button" className="secondary" onClick={() => void runExport()}>{t('report.export')}</button>
      </div>
      {exported ? <div className="notice notice-info" role="status">{t('report.exported', { rows: formatCount(exported.rows), file: exported.filename })}</div> : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      <ReportRows />
    </section>
  );
}
