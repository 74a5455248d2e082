/** One row's last column: valid or invalid before sending, the rehearsal's outcome, then the real result. */
import { useTranslation } from 'react-i18next';
import type { BatchRow, BatchState } from '../../../shared/api';
import { isListedStatus } from '../../../shared/contract/codes';
import { statusLabel } from '../components/common';
import { describeFailedCode, describeServiceError } from '../messages/errors';
import { rowInvalid } from '../stores/batch';
import { RowIdentity } from './BatchIdentity';

/** The word and badge tone of a row's result (its sending state, then the status the console saw). */
/** A failure's code beside the result, its sentence on hover. */
function FailureCode({ code, why }: { code: string | null; why: string | null }) {
  return code ? (
    <span className="cell-error mono" title={why ?? undefined}>
      {code}
    </span>
  ) : null;
}

export function rowOutcome(row: BatchRow, batchState: BatchState): { tone: string; key: 'pending' | 'sending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'rejected' | 'outcome_unknown' | 'skipped' | 'moved'; unlisted?: string } {
  // Moved to the batch of the remaining rows: that batch's now, whatever became of its payout there.
  if (row.movedTo) return { tone: 'cancelled', key: 'moved' };
  switch (row.state) {
    case 'not_sent':
      return batchState === 'cancelled' || batchState === 'done' ? { tone: 'cancelled', key: 'skipped' } : { tone: 'known', key: 'pending' };
    case 'pending':
      return { tone: 'pending', key: 'sending' };
    case 'accepted':
      if (row.status !== null && !isListedStatus(row.status)) return { tone: 'processing', key: 'processing', unlisted: row.status }; // shown as said, followed up
      return row.status && row.status !== 'initiated' ? { tone: row.status, key: row.status } : { tone: 'processing', key: 'processing' };
    case 'rejected':
      return { tone: 'rejected', key: 'rejected' };
    case 'unknown':
      return { tone: 'outcome_unknown', key: 'outcome_unknown' };
    default: {
      const missing: never = row.state;
      return missing;
    }
  }
}

export function BatchRowResult({ row, batchState }: { row: BatchRow; batchState: BatchState }) {
  const { t } = useTranslation('batch');
  if (batchState !== 'draft') {
    const outcome = rowOutcome(row, batchState);
    const detail = row.failedCode ?? row.error?.code ?? null;
    const why = row.failedCode ? describeFailedCode(row.failedCode, 'payout') : row.error ? describeServiceError(row.error) : null;
    return (
      <>
        <span className={`badge badge-${outcome.tone}`} data-status={outcome.key}>
          {outcome.unlisted ? statusLabel(outcome.unlisted) : t(`row.${outcome.key}`)}
        </span>
        <FailureCode code={detail} why={why} />
        <RowIdentity row={row} />
      </>
    );
  }
  if (rowInvalid(row)) return <span className="cell-error">{t('table.invalid')}</span>;
  const rehearsal = row.rehearsal;
  if (rehearsal) {
    const tone = rehearsal.wouldFail ? (rehearsal.state === 'accepted' ? (rehearsal.status ?? 'failed') : 'rejected') : 'completed';
    const detail = rehearsal.failedCode ?? rehearsal.code;
    const why = rehearsal.failedCode ? describeFailedCode(rehearsal.failedCode, 'payout') : rehearsal.code ? describeServiceError({ code: rehearsal.code, message: rehearsal.message }) : null;
    return (
      <>
        <span className={`badge badge-${tone}`} data-status={`rehearsal-${tone}`} title={t('rehearsal.outcomeColumn')}>
          {rehearsal.wouldFail ? t('rehearsal.wouldFail') : t('rehearsal.wouldPass')}
        </span>
        <FailureCode code={detail} why={why} />
      </>
    );
  }
  return <span className="muted small">{t('table.ok')}</span>;
}
