/**
 * What the batch screens say about a payout's identity (issue 23): rows of a draft already sent
 * under the same external id (and how they ended), a cancelled batch's rows left to send, and a
 * row that adopted an earlier payout or retries one.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { batchFigures, type ApiFailure, type BatchDetail, type BatchRow, type RenewedIds } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { formatCount } from '../format/money';
import { useBatch } from '../stores';
import { adoptedWords } from './adoptedParts';

/** Rows listed by name in the notice; the counts cover all of them. */
const LISTED = 8;

/** A draft whose rows were already sent: which, how they ended, and sending only the rest. */
export function SentEarlierNotice({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const dropRows = useBatch((s) => s.dropRows);
  const [renewing, setRenewing] = useState(false);
  const sent = detail.sentEarlier;
  if (!sent || sent.count === 0) return null;
  const n = (value: number) => formatCount(value);
  return (
    <div className="notice notice-warn" role="alert" data-testid="sent-earlier">
      <strong>{t('identity.sentTitle', { count: sent.count, n: n(sent.count) })}</strong>
      <p>
        {t('identity.sentBody', {
          completed: n(sent.completed),
          processing: n(sent.processing),
          failed: n(sent.failed),
          unknown: n(sent.unknown),
          neverLeft: n(sent.neverLeft),
        })}
      </p>
      <ul className="sent-earlier-list">
        {sent.rows.slice(0, LISTED).map((row) => (
          <li key={row.rowNumber}>
            {t('identity.sentRow', { row: row.rowNumber, id: row.externalId, outcome: t(`identity.outcome.${row.outcome}`) })}
            {row.batchId ? <span className="muted"> · {t('identity.sentIn', { batch: row.batchId })}</span> : null}
          </li>
        ))}
        {sent.count > LISTED ? <li className="muted">{t('identity.sentMore', { n: n(sent.count - LISTED) })}</li> : null}
      </ul>
      <div className="actions left">
        {sent.neverLeft > 0 ? (
          <button type="button" className="primary small" onClick={() => void dropRows('sent')}>
            {t('identity.sendOnly', { count: sent.neverLeft, n: n(sent.neverLeft) })}
          </button>
        ) : null}
        <button type="button" className="secondary small" onClick={() => setRenewing(true)}>
          {t('identity.renew')}
        </button>
      </div>
      <p className="hint">{t('identity.renewHint')}</p>
      {renewing ? <RenewDialog onClose={() => setRenewing(false)} /> : null}
    </div>
  );
}

/**
 * "Send them as new payouts": the new external ids the rows sent earlier would take, asked of main
 * without writing them (the first ones listed, the count in words), and that each is paid again.
 */
function RenewDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('batch');
  const planRenewal = useBatch((s) => s.planRenewal);
  const renewSentIds = useBatch((s) => s.renewSentIds);
  const [plan, setPlan] = useState<{ value: RenewedIds | null; error: ApiFailure | null }>({ value: null, error: null });
  useEffect(() => {
    let current = true;
    void planRenewal().then((result) => {
      if (current && result) setPlan(result.ok ? { value: result.value, error: null } : { value: null, error: result.error });
    });
    return () => {
      current = false;
    };
  }, [planRenewal]);
  const count = plan.value?.count ?? 0;
  const n = formatCount(count);
  const listed = plan.value?.rows.slice(0, LISTED) ?? [];
  const details = plan.error ? (
    <ErrorNotice failure={plan.error} />
  ) : plan.value ? (
    <ul className="sent-earlier-list" data-testid="renew-list">
      {listed.map((row) => (
        <li key={row.rowNumber} className="mono">
          {t('identity.renewRow', { row: row.rowNumber, from: row.from, to: row.to })}
        </li>
      ))}
      {count > listed.length ? <li className="muted">{t('identity.sentMore', { n: formatCount(count - listed.length) })}</li> : null}
    </ul>
  ) : (
    <p className="muted" role="status">
      {t('identity.renewLoading')}
    </p>
  );
  return (
    <ConfirmDialog
      title={t('identity.renewTitle', { count, n })}
      keepLabel={t('identity.renewKeep')}
      actLabel={t('identity.renewYes', { count, n })}
      details={details}
      actDisabled={count === 0}
      onClose={onClose}
      onConfirm={() => void renewSentIds()}
    >
      {t('identity.renewBody', { count, n })}
    </ConfirmDialog>
  );
}

/** A cancelled batch: its remaining rows will not be sent; they can be, as a new confirmed batch. */
export function CancelledRemainingNotice({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const sendRemaining = useBatch((s) => s.sendRemaining);
  const open = useBatch((s) => s.open);
  const { remaining } = batchFigures(detail.batch.counts);
  const later = detail.remainingBatch;
  if (detail.batch.state !== 'cancelled' || (remaining === 0 && !later)) return null;
  const n = formatCount(remaining);
  if (later) {
    // Already made into a batch of their own: say where they went (sending them again is that batch's business).
    // Its own row count: a row that met a 429 here shares its payout's entry with that batch, so once
    // sent there it no longer counts as remaining here.
    const taken = later.rows ?? remaining;
    return (
      <div className="notice notice-info" role="status" data-testid="cancelled-remaining">
        <strong>{t('identity.remainingIn', { count: taken, n: formatCount(taken), name: later.fileName, state: t(`state.${later.state}`) })}</strong>
        <div className="actions left">
          <button type="button" className="secondary small" onClick={() => void open(later.batchId)}>
            {t('duplicateFile.open')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="notice notice-info" role="status" data-testid="cancelled-remaining">
      <strong>{t('identity.cancelledTitle', { count: remaining, n })}</strong>
      <p>{t('identity.cancelledBody')}</p>
      <div className="actions left">
        <button type="button" className="secondary" onClick={() => void sendRemaining()}>
          {t('identity.sendRemaining', { count: remaining, n })}
        </button>
      </div>
    </div>
  );
}

/** Under a row's result: it adopted an earlier payout, or it retries one (under a derived id). */
export function RowIdentity({ row }: { row: BatchRow }) {
  const { t } = useTranslation('batch');
  const open = useBatch((s) => s.open);
  const movedTo = row.movedTo;
  return (
    <>
      {movedTo ? (
        // The row is the other batch's now: a link there, where it is sent and counted.
        <button type="button" className="link small" title={t('identity.movedToHint')} data-testid="moved-to" onClick={() => void open(movedTo.batchId)}>
          {t('identity.movedTo', { name: movedTo.fileName })}
        </button>
      ) : null}
      {row.alreadySent && row.adoptedDiffers ? (
        // Adopted, yet not this row's payout: said in full, the status beside it is someone else's payment.
        <strong className="cell-warn" title={t('identity.adoptedDiffersHint')} data-testid="adopted-differs">
          {t('identity.adoptedDiffers', adoptedWords(row.adoptedDiffers))}
        </strong>
      ) : row.alreadySent ? (
        <span className="cell-warn" title={t('identity.alreadySentHint')} data-testid="already-sent">
          {t('identity.alreadySent')}
        </span>
      ) : null}
      {row.paidBy ? (
        <span className="muted small" data-testid="paid-by">
          {row.paidBy.batchId ? t('identity.paidByBatch', { batch: row.paidBy.batchId, row: row.paidBy.rowNumber ?? '?' }) : t('identity.paidBySingle')}
        </span>
      ) : null}
      {row.retryOf ? <span className="muted small mono">{t('identity.retryOf', { id: row.retryOf })}</span> : null}
    </>
  );
}
