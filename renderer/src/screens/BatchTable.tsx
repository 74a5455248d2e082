/**
 * The rows of a batch as a virtualised table (a batch reaches thousands of rows): each cell with its
 * errors beside it, duplicates flagged, a cell fixed in place, a row dropped. After sending, the same
 * table shows each row's result.
 */
import { memo, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatMoney } from '../format/money';
import { breakableAddress, moneyInCell } from '../format/wrap';
import type { BatchRow, BatchState } from '../../../shared/api';
import { EDITABLE_COLUMNS, rowInvalid, type EditableColumn } from '../stores/batch';
import { BatchRowResult } from './BatchRowResult';
import { ColumnHeader, useColumnWidths, type ColumnSpec } from '../components/columns';
import { translateFieldErrors } from '../messages/fields';
import { usePagedList } from '../components/usePagedList';

/** The estimate of a row's height; rows grow to show a wrapped error or a long name whole. */
const ROW_HEIGHT = 50;
/** The table's columns: they share the window's width (fr tracks), and each can be resized. */
const COLUMNS: readonly ColumnSpec[] = [
  // Minimums at 1280 px: each header's longest word whole (Description, Métadonnées, Ligne), a
  // result badge whole (ÉCHOUERAIT), and all of them inside the card (test/e2e/fit-1280.test.ts).
  { key: 'row', track: '50px', resizable: false },
  { key: 'phone_number', track: 'minmax(132px, 1fr)', min: 100 },
  { key: 'amount', track: 'minmax(84px, 0.8fr)', min: 70 },
  { key: 'first_name', track: 'minmax(66px, 0.9fr)', min: 56 },
  { key: 'last_name', track: 'minmax(74px, 0.9fr)', min: 56 },
  { key: 'email', track: 'minmax(96px, 1.5fr)', min: 80 },
  { key: 'description', track: 'minmax(92px, 1fr)', min: 90 },
  { key: 'external_id', track: 'minmax(96px, 1.2fr)', min: 80 },
  { key: 'metadata', track: 'minmax(100px, 0.6fr)', min: 98 },
  { key: 'result', track: 'minmax(112px, 1.1fr)', min: 108 },
  { key: 'actions', track: '80px', resizable: false },
];

/** What a cell shows: its value (an amount as money once valid, an e-mail breakable), its errors in words. */
function cellContent(row: BatchRow, column: EditableColumn, currency: string) {
  const errors = row.errors[column]?.length ? translateFieldErrors(row.errors[column]) : undefined;
  const raw = row.values[column];
  const shown = column === 'amount' && row.request && !errors?.length ? moneyInCell(formatMoney(row.request.amount, currency)) : raw;
  // An e-mail wraps after its @ or a dot, not in the middle of a word.
  const drawn = column === 'email' ? breakableAddress(shown) : shown;
  return { errors, raw, shown, drawn, errorId: `cell-${row.rowNumber}-${column}-error` };
}

function CellErrors({ errors, id }: { errors: string[] | undefined; id: string }) {
  return errors?.length ? (
    <span className="cell-error" id={id} title={errors.join('; ')}>
      {errors.join('; ')}
    </span>
  ) : null;
}

/**
 * A cell of a batch that is no longer a draft: no hooks, no label to translate. Sending starts and
 * every row on screen turns read-only in one frame; the editable cell's state, effects and
 * translated labels for ~250 cells made that frame 40 ms of script (issue 28, bench/long-frames.ts).
 */
function ReadOnlyCell({ row, column, currency }: { row: BatchRow; column: EditableColumn; currency: string }) {
  const { errors, raw, shown, drawn, errorId } = cellContent(row, column, currency);
  return (
    <div className={`batch-cell${column === 'amount' ? ' num' : ''}`} role="cell" data-column={column} data-invalid={errors?.length ? 'true' : undefined}>
      <span className="value" title={raw || (column === 'external_id' ? row.externalId : undefined)}>
        {shown !== '' ? drawn : column === 'external_id' ? <span className="placeholder">{row.externalId}</span> : null}
      </span>
      <CellErrors errors={errors} id={errorId} />
    </div>
  );
}

function EditableCell({
  row,
  column,
  currency,
  onEdit,
}: {
  row: BatchRow;
  currency: string;
  column: EditableColumn;
  onEdit: (rowNumber: number, column: EditableColumn, value: string) => Promise<boolean>;
}) {
  const { t } = useTranslation('batch');
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);
  const valueButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // Editing ends (Enter, Escape, a save on blur): the input is gone, so focus would fall to <body>
  // and the keyboard user would lose their place. It goes back to this cell's value, unless the blur
  // that ended the edit already put it somewhere on purpose (Tab, a click on another control).
  useEffect(() => {
    if (editing) {
      wasEditing.current = true;
      return;
    }
    if (!wasEditing.current) return;
    wasEditing.current = false;
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) valueButton.current?.focus();
  }, [editing]);
  const { errors, raw, shown, drawn, errorId } = cellContent(row, column, currency);
  const label = t('table.edit', { column: t(`columns.${column}`), row: row.rowNumber });

  async function save() {
    if (saving) return;
    if (draft === raw) {
      setEditing(false);
      return;
    }
    setSaving(true);
    const saved = await onEdit(row.rowNumber, column, draft);
    setSaving(false);
    if (saved) setEditing(false);
  }

  return (
    <div className={`batch-cell${column === 'amount' ? ' num' : ''}`} role="cell" data-column={column} data-invalid={errors?.length ? 'true' : undefined}>
      {editing ? (
        <input
          aria-label={label}
          autoFocus
          value={draft}
          disabled={saving}
          aria-invalid={errors?.length ? true : undefined}
          aria-describedby={errors?.length ? errorId : undefined}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={() => void save()}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void save();
            } else if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              setEditing(false);
            }
          }}
        />
      ) : (
        <button
          ref={valueButton}
          type="button"
          className="value-button"
          aria-label={`${label}: ${raw}`}
          aria-invalid={errors?.length ? true : undefined}
          aria-describedby={errors?.length ? errorId : undefined}
          title={`${raw} — ${t('table.editHint')}`}
          onClick={() => {
            setDraft(raw);
            setEditing(true);
          }}
        >
          {shown !== '' ? drawn : column === 'external_id' ? <span className="placeholder">{row.externalId}</span> : <span className="placeholder">—</span>}
        </button>
      )}
      <CellErrors errors={errors} id={errorId} />
    </div>
  );
}

/** Errors of cells the table has no column for (payment_method, meta.KEY, the metadata as a whole). */
function otherErrors(row: BatchRow): string[] {
  return Object.entries(row.errors)
    .filter(([column]) => !(EDITABLE_COLUMNS as readonly string[]).includes(column))
    .map(([column, messages]) => (column === '_' ? translateFieldErrors(messages).join('; ') : `${column}: ${translateFieldErrors(messages).join('; ')}`));
}

type RowProps = {
  row: BatchRow;
  batchState: BatchState;
  currency: string;
  editable: boolean;
  onEdit: (rowNumber: number, column: EditableColumn, value: string) => Promise<boolean>;
  onDrop: ((rowNumber: number) => void) | null;
};

/**
 * Memoised: a push patches a few rows (the others keep their objects) and every prop else is stable,
 * so only the rows that changed are drawn again; drawing every visible row's cells on each push made
 * 140 ms frames while sending (issue 28, bench/batch-ui.ts).
 */
const Row = memo(function Row({
  row,
  batchState,
  currency,
  editable,
  onEdit,
  onDrop,
}: RowProps) {
  const { t } = useTranslation('batch');
  const metadata = Object.entries(row.values.meta)
    .map(([key, value]) => `${key}=${value}`)
    .join('; ');
  const others = otherErrors(row);
  const duplicates = row.duplicates
    .map((d) => t(d.reason === 'external_id' ? 'table.duplicateExternalId' : 'table.duplicatePhoneAmount', { rows: d.rowNumbers.join(', ') }))
    .join(' · ');
  return (
    <>
      <div className="batch-cell row-no" role="rowheader">
        {formatCount(row.rowNumber)}
      </div>
      {EDITABLE_COLUMNS.map((column) =>
        editable ? <EditableCell key={column} row={row} column={column} currency={currency} onEdit={onEdit} /> : <ReadOnlyCell key={column} row={row} column={column} currency={currency} />,
      )}
      <div className="batch-cell" role="cell">
        <span className="value mono small" title={metadata}>
          {metadata}
        </span>
        {others.length ? (
          <span className="cell-error" title={others.join(' · ')}>
            {others.join(' · ')}
          </span>
        ) : null}
      </div>
      <div className="batch-cell" role="cell">
        <BatchRowResult row={row} batchState={batchState} />
      </div>
      <div className="batch-cell row-actions" role="cell">
        {onDrop ? (
          <button type="button" className="secondary small" aria-label={t('table.dropLabel', { row: row.rowNumber })} onClick={() => onDrop(row.rowNumber)}>
            {t('table.drop')}
          </button>
        ) : null}
      </div>
      {duplicates ? (
        // A line of its own under the row's values, across the columns: the warning is about the whole row, not its metadata.
        <div className="batch-cell row-flags" role="cell" aria-colspan={COLUMNS.length - 1}>
          <span className="cell-warn">{duplicates}</span>
        </div>
      ) : null}
    </>
  );
});

/**
 * Memoised: a push changes the counters above it (the Failed and Outcome unknown filters) several
 * times a second; the table's own props change only when rows do.
 */
export const BatchTable = memo(function BatchTable({
  count,
  loading,
  rowAt,
  ensureRows,
  pages,
  batchState,
  currency,
  editable,
  onEdit,
  onDrop,
  resultHeading,
}: {
  count: number;
  /** The first page has not answered yet: not "no rows". */
  loading: boolean;
  rowAt: (index: number) => BatchRow | undefined;
  ensureRows: (first: number, last: number) => Promise<void>;
  /** The store's pages: a new set redraws the rows and asks for the ones on screen. */
  pages: unknown;
  batchState: BatchState;
  currency: string;
  editable: boolean;
  onEdit: (rowNumber: number, column: EditableColumn, value: string) => Promise<boolean>;
  onDrop: ((rowNumber: number) => void) | null;
  resultHeading: string;
}) {
  const { t } = useTranslation('batch');
  const widths = useColumnWidths('batch-rows', COLUMNS);
  // Rows are measured once drawn: a wrapped error or name makes its row taller, never cut.
  const { parent, virtualizer, items } = usePagedList({ count, rowHeight: ROW_HEIGHT, overscan: 10, measured: true, ensureRows, pages });
  // A filter that shrinks the list must not leave the view scrolled past its end.
  useEffect(() => {
    if (parent.current && parent.current.scrollTop > count * ROW_HEIGHT) parent.current.scrollTop = 0;
  }, [count]);
  return (
    <div className="batch-grid" style={widths.style}>
      <div className="batch-grid-scroll" ref={parent} role="table" aria-label={t('table.region', { rows: formatCount(count) })} aria-rowcount={count + 1} tabIndex={0}>
        <div className="batch-grid-head" role="row" aria-rowindex={1}>
          {COLUMNS.map((column) => {
            const label =
              column.key === 'row' ? t('table.row') : column.key === 'result' ? resultHeading : column.key === 'actions' ? t('table.actions') : t(`columns.${column.key as EditableColumn | 'metadata'}`);
            return (
              <ColumnHeader key={column.key} column={column} widths={widths} label={label}>
                {column.key === 'actions' ? <span className="sr-only">{label}</span> : undefined}
              </ColumnHeader>
            );
          })}
        </div>
        {count === 0 && !loading ? <div className="batch-grid-empty">{t('table.noRows')}</div> : null}
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            const invalid = row ? rowInvalid(row) : false;
            return (
              <div
                key={row ? `r${row.rowNumber}` : item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="row"
                aria-rowindex={item.index + 2}
                className="batch-grid-row"
                data-invalid={invalid ? 'true' : undefined}
                data-duplicate={row?.duplicates.length ? 'true' : undefined}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, minHeight: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
              >
                {row ? <Row row={row} batchState={batchState} currency={currency} editable={editable} onEdit={onEdit} onDrop={onDrop} /> : null}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
});
