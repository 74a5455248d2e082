/** The rows section: what is wrong in words, a filter, the table, and what to do with invalid rows. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { batchFigures, type ApiFailure, type BatchDetail } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import type { RowFilter } from '../stores/batch';
import { useBatch, useProfiles } from '../stores';
import { downloadCsv } from '../components/download';
import { BatchTable } from './BatchTable';

/** The same rows were imported before: say when and as what, and ask before sending them again. */
export function DuplicateImportNotice({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const open = useBatch((s) => s.open);
  const accept = useBatch((s) => s.acceptDuplicateFile);
  const setAccept = useBatch((s) => s.setAcceptDuplicateFile);
  // A batch that was sent (even in part) comes first: that is the one that would pay people twice.
  const earlier = detail.importedBefore.find((e) => e.state !== 'draft') ?? detail.importedBefore[0];
  if (!earlier) return null;
  const sent = earlier.state !== 'draft';
  // Rows still under an id sent earlier are answered in their own notice: dropped, or sent as new payouts.
  const choice = sent && !detail.sentEarlier;
  return (
    <div className="notice notice-warn" role="alert">
      <strong>{sent ? t('duplicateFile.title') : t('duplicateFile.titleDraft')}</strong>
      <p>{t('duplicateFile.body', { when: formatDateTime(earlier.createdAt), name: earlier.fileName, state: t(`state.${earlier.state}`) })}</p>
      <div className="actions left">
        <button type="button" className="secondary small" onClick={() => void open(earlier.batchId)}>
          {t('duplicateFile.open')}
        </button>
        {choice ? (
          <>
            <label className="switch">
              <input type="checkbox" checked={accept} onChange={(e) => setAccept(e.target.checked)} />
              {t('duplicateFile.confirm')}
            </label>
            <span className="hint">{t('duplicateFile.confirmHint')}</span>
          </>
        ) : null}
      </div>
    </div>
  );
}

/** Dropping rows cannot be undone in the batch: ask once, with Cancel first (it has the focus). */
function DropInvalidConfirm({ count, onClose, onDrop }: { count: number; onClose: () => void; onDrop: () => void }) {
  const { t } = useTranslation('batch');
  const n = formatCount(count);
  return (
    <ConfirmDialog title={t('table.dropConfirmTitle', { count, n })} keepLabel={t('table.dropKeep')} actLabel={t('table.dropYes')} onClose={onClose} onConfirm={onDrop}>
      {t('table.dropConfirmBody', { count, n })}
    </ConfirmDialog>
  );
}

/** Filters whose rows only go away (dropped, fixed): empty, they have nothing to show. */
const SHRINKING: ReadonlySet<RowFilter> = new Set(['invalid', 'duplicates', 'wouldFail']);

export function BatchRows({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const filter = useBatch((s) => s.filter);
  const setFilter = useBatch((s) => s.setFilter);
  const rowAt = useBatch((s) => s.rowAt);
  const ensureRows = useBatch((s) => s.ensureRows);
  const pages = useBatch((s) => s.pages);
  const total = useBatch((s) => s.total);
  // While sending, the pushed figures are newer than the summary's counts (a number: the table is not drawn again for every push).
  const failedPushed = useBatch((s) => (s.progress?.mode === 'send' && s.progress.batchId === detail.batch.id ? s.progress.failed : null));
  const unknownPushed = useBatch((s) => (s.progress?.mode === 'send' && s.progress.batchId === detail.batch.id ? s.progress.unknown : null));
  const editCell = useBatch((s) => s.editCell);
  const dropRows = useBatch((s) => s.dropRows);
  const invalidRowsCsv = useBatch((s) => s.invalidRowsCsv);
  const actionError = useBatch((s) => s.actionError);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const [editFailure, setEditFailure] = useState<ApiFailure | null>(null);
  const [confirmDrop, setConfirmDrop] = useState(false);
  const { batch } = detail;
  const draft = batch.state === 'draft';
  const invalid = batch.counts.invalid;
  const duplicates = batch.counts.duplicates;
  // The `failed` and `unknown` lists hold what the Failed and Outcome unknown counters count (batchFigures).
  // Once it has stopped, statuses still settle (the follow-up sweep) and the summary, fetched again, is the newer.
  const live = batch.state === 'sending' && failedPushed !== null && unknownPushed !== null;
  const figures = batchFigures(batch.counts);
  const failed = draft ? 0 : live ? failedPushed : figures.failed;
  const unknown = draft ? 0 : live ? unknownPushed : figures.unknown;
  // "Drop the N invalid rows" goes with the rows it named: focus would fall to <body>. It goes to
  // this section's heading instead, where the "every row is valid" status is read next.
  const rowsHeading = useRef<HTMLHeadingElement>(null);
  const droppedInvalid = useRef(false);
  useEffect(() => {
    if (droppedInvalid.current && invalid === 0) rowsHeading.current?.focus();
    if (invalid === 0 || actionError) droppedInvalid.current = false;
  }, [invalid, actionError]);
  const filters: [RowFilter, number][] = [['all', batch.counts.rows], ['invalid', invalid], ['duplicates', duplicates]];
  if (detail.rehearsal && draft) filters.push(['wouldFail', detail.rehearsal.wouldFail]);
  if (!draft) filters.push(['failed', failed]);
  // Shown when there are some (or while it is the list shown, so it can be left).
  if (!draft && (unknown > 0 || filter === 'unknown')) filters.push(['unknown', unknown]);
  // A list that only shrinks (the invalid rows dropped, duplicates fixed, the rehearsal gone with the
  // draft) and is now empty, or no longer offered, is left for All: never "No rows match this filter" on a full batch.
  const shownFilter = filters.find(([name]) => name === filter);
  const emptied = filter !== 'all' && (!shownFilter || (SHRINKING.has(filter) && shownFilter[1] === 0));
  useEffect(() => {
    if (emptied) setFilter('all');
  }, [emptied, setFilter]);

  // Stable across renders: the table's rows are drawn again only when they change.
  const onEdit = useCallback(
    async (rowNumber: number, column: string, value: string) => {
      const failure = await editCell(rowNumber, column, value);
      setEditFailure(failure);
      return failure === null;
    },
    [editCell],
  );
  const dropOne = useCallback((rowNumber: number) => void dropRows([rowNumber]), [dropRows]);
  async function downloadInvalid() {
    const file = await invalidRowsCsv();
    if (file) downloadCsv(file.filename, file.csv);
  }

  return (
    <section className="card" aria-labelledby="batch-rows-title">
      <h2 id="batch-rows-title" ref={rowsHeading} tabIndex={-1}>{t('steps.rows')}</h2>
      {draft ? (
        <div role="status">
          {invalid > 0 ? (
            <p className="field-error">{t('table.invalidCount', { count: invalid, n: formatCount(invalid) })}</p>
          ) : (
            <p className="stored">{t('table.allValid')}</p>
          )}
          {duplicates > 0 ? <p className="danger-text">{t('table.duplicateCount', { count: duplicates, n: formatCount(duplicates) })}</p> : null}
        </div>
      ) : null}
      <div className="batch-table-bar">
        <fieldset className="segmented">
          <legend>{t('table.filter.label')}</legend>
          {filters.map(([name, n]) => (
            <label key={name}>
              <input type="radio" name="batch-filter" value={name} checked={filter === name} disabled={SHRINKING.has(name) && n === 0 && filter !== name} onChange={() => setFilter(name)} />
              {t(`table.filter.${name}`, { n: formatCount(n) })}
            </label>
          ))}
        </fieldset>
        {draft && invalid > 0 ? (
          <div className="actions">
            <button type="button" className="secondary" onClick={() => void downloadInvalid()}>
              {t('table.downloadInvalid')}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirmDrop(true)}>
              {t('table.dropSelected', { count: invalid, n: formatCount(invalid) })}
            </button>
          </div>
        ) : null}
      </div>
      {confirmDrop && draft && invalid > 0 ? (
        <DropInvalidConfirm count={invalid} onClose={() => setConfirmDrop(false)} onDrop={() => {
            droppedInvalid.current = true;
            void dropRows('invalid');
          }}
        />
      ) : null}
      {editFailure ? <ErrorNotice failure={editFailure} /> : null}
      {actionError ? <ErrorNotice failure={actionError} /> : null}
      <BatchTable
        count={total ?? 0}
        loading={total === null}
        rowAt={rowAt}
        ensureRows={ensureRows}
        pages={pages}
        batchState={batch.state}
        currency={currency}
        editable={draft}
        onEdit={onEdit}
        onDrop={draft ? dropOne : null}
        resultHeading={draft && detail.rehearsal ? t('confirm.rehearsal') : t('table.result')}
      />
    </section>
  );
}
