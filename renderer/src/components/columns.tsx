/**
 * Resizable columns for the console's grid tables (bulk rows, Reconcile report): one mechanism,
 * not a patch per screen. A table lists its columns with a default CSS grid track each
 * (`minmax(110px, 1.5fr)`: the tables fill the window's width); a column the user has dragged (or
 * moved with the arrow keys on its separator) gets a fixed width in pixels. Widths are kept for
 * the session and in localStorage per table, so a table opens as the user left it.
 */
import { useCallback, useState, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import '../tables.css';

export interface ColumnSpec {
  key: string;
  /** The default CSS grid track, e.g. `minmax(110px, 1.5fr)` or `64px`. */
  track: string;
  /** The narrowest a user may make it (px). */
  min?: number;
  /** False for narrow fixed columns (row number, actions). */
  resizable?: boolean;
}

const STEP = 16;
const STORAGE_PREFIX = 'paydesk.columns.';
const sessionWidths = new Map<string, Record<string, number>>();

function storedWidths(tableId: string): Record<string, number> {
  const inSession = sessionWidths.get(tableId);
  if (inSession) return inSession;
  let widths: Record<string, number> = {};
  try {
    const raw = globalThis.localStorage?.getItem(STORAGE_PREFIX + tableId);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (parsed && typeof parsed === 'object') {
      widths = Object.fromEntries(Object.entries(parsed as Record<string, unknown>).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0));
    }
  } catch {
    // No storage (or a damaged entry): the defaults.
  }
  sessionWidths.set(tableId, widths);
  return widths;
}

function storeWidths(tableId: string, widths: Record<string, number>): void {
  sessionWidths.set(tableId, widths);
  try {
    globalThis.localStorage?.setItem(STORAGE_PREFIX + tableId, JSON.stringify(widths));
  } catch {
    // Kept for the session only.
  }
}

export interface ColumnWidths {
  /** The `grid-template-columns` of the head and every row. */
  template: string;
  /** Style for the table's container: rows read `var(--grid-columns)`. */
  style: CSSProperties;
  width: (key: string) => number | undefined;
  setWidth: (key: string, px: number) => void;
  reset: () => void;
}

export function useColumnWidths(tableId: string, columns: readonly ColumnSpec[]): ColumnWidths {
  const [widths, setWidths] = useState<Record<string, number>>(() => storedWidths(tableId));
  const setWidth = useCallback(
    (key: string, px: number) => {
      const spec = columns.find((column) => column.key === key);
      const next = { ...storedWidths(tableId), [key]: Math.round(Math.max(spec?.min ?? 48, px)) };
      storeWidths(tableId, next);
      setWidths(next);
    },
    [columns, tableId],
  );
  const reset = useCallback(() => {
    storeWidths(tableId, {});
    setWidths({});
  }, [tableId]);
  const template = columns.map((column) => (widths[column.key] ? `${widths[column.key]}px` : column.track)).join(' ');
  return { template, style: { ['--grid-columns' as string]: template }, width: (key) => widths[key], setWidth, reset };
}

/**
 * A column's header: its whole label (headers wrap rather than being cut), and a separator the
 * user drags, or focuses and moves with ← →, to resize the column.
 */
export function ColumnHeader({
  column,
  widths,
  label,
  children,
  className,
  role = 'columnheader',
}: {
  column: ColumnSpec;
  widths: ColumnWidths;
  /** The column's name in words, for the separator's label. */
  label: string;
  children?: ReactNode;
  className?: string;
  /** `columnheader` inside a role=table; `none` over a list (Reconcile's report is a list of rows). */
  role?: 'columnheader' | 'none';
}) {
  const { t } = useTranslation('components');
  const resizable = column.resizable !== false;

  function startDrag(event: PointerEvent<HTMLSpanElement>) {
    const header = event.currentTarget.parentElement;
    if (!header) return;
    event.preventDefault();
    const startX = event.clientX;
    const startWidth = header.getBoundingClientRect().width;
    const handle = event.currentTarget;
    handle.setPointerCapture?.(event.pointerId);
    const move = (moved: globalThis.PointerEvent) => widths.setWidth(column.key, startWidth + moved.clientX - startX);
    const end = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  }

  function onKey(event: KeyboardEvent<HTMLSpanElement>) {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const header = event.currentTarget.parentElement;
    const current = widths.width(column.key) ?? header?.getBoundingClientRect().width ?? 120;
    widths.setWidth(column.key, current + (event.key === 'ArrowRight' ? STEP : -STEP));
  }

  const current = widths.width(column.key);
  const [measured, setMeasured] = useState<number | null>(null);
  const measure = useCallback((node: HTMLSpanElement | null) => {
    if (node) setMeasured(node.getBoundingClientRect().width);
  }, []);
  return (
    <span ref={measure} role={role === 'none' ? undefined : role} className={`grid-col-head${className ? ` ${className}` : ''}`} title={label}>
      <span className="grid-col-label">{children ?? label}</span>
      {resizable ? (
        <span
          role="separator"
          aria-orientation="vertical"
          aria-label={t('resizeColumn', { column: label })}
          // A focusable separator is a control: it always says its width (measured until one is set).
          aria-valuenow={Math.round(current ?? measured ?? 0)}
          aria-valuemin={column.min ?? 0}
          tabIndex={0}
          className="grid-col-resizer"
          data-column={column.key}
          onPointerDown={startDrag}
          onKeyDown={onKey}
          onDoubleClick={() => widths.reset()}
        />
      ) : null}
    </span>
  );
}
