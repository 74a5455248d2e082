/** After sending: the outcome in numbers, the report CSV for the accountant, and retrying the failed rows. */
import { useTranslation } from 'react-i18next';
import type { BatchDetail, RetryLeft } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { formatCount } from '../format/money';
import { useBatch } from '../stores';
import { downloadCsv } from '../components/download';
import { useShownProgress } from './BatchProgress';

export function BatchReportCard({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const reportCsv = useBatch((s) => s.reportCsv);
  const retryFailed = useBatch((s) => s.retryFailed);
  const exported = useBatch((s) => s.exported);
  const actionError = useBatch((s) => s.actionError);
  const { state } = detail.batch;
  // The same snapshot as the progress card: "4 processing" never sits beside "Sent 0".
  const { p } = useShownProgress(detail);
  const stopped = state === 'done' || state === 'cancelled';
  // Refused, or created and then failed or cancelled (a row whose outcome is unknown is looked up, not retried).
  const failedRows = p.failed;
  // Every failed row retried already (the retry chain): nothing to offer, say where they went instead.
  const retry = detail.retryLeft;
  const nothingLeft = retry !== undefined && retry.rows === 0;
  const offerRetry = stopped && failedRows > 0 && !nothingLeft;

  async function exportReport() {
    const file = await reportCsv();
    if (file) downloadCsv(file.filename, file.csv);
  }

  return (
    <section className="card" aria-labelledby="batch-report-title">
      <h2 id="batch-report-title">{t('report.heading')}</h2>
      <p>
        {t('report.summary', {
          completed: formatCount(p.completed ?? p.accepted - (p.processing ?? 0)),
          failed: formatCount(p.failed),
          unknown: formatCount(p.unknown),
          pending: formatCount((p.processing ?? 0) + (p.inFlight ?? 0)),
        })}
      </p>
      {p.moved ? (
        <p className="muted" data-testid="report-moved">
          {t('report.moved', { count: p.moved, n: formatCount(p.moved), name: detail.remainingBatch?.fileName ?? '' })}
        </p>
      ) : null}
      {p.elsewhere ? <p className="muted" data-testid="report-elsewhere">{t('report.elsewhere', { count: p.elsewhere, n: formatCount(p.elsewhere) })}</p> : null}
      {detail.adoptedDiffering ? (
        <div className="notice notice-warn" role="note" data-testid="adopted-differing">
          <strong>{t('report.adoptedDiffering', { count: detail.adoptedDiffering, n: formatCount(detail.adoptedDiffering) })}</strong>
          <p>{t('report.adoptedDifferingNext')}</p>
        </div>
      ) : null}
      {stopped && nothingLeft ? <RetriedAll retry={retry} /> : null}
      {exported ? (
        <p className="notice notice-info" role="status">
          {t('report.exported', { rows: formatCount(exported.rows), filename: exported.filename })}
        </p>
      ) : null}
      {actionError ? <ErrorNotice failure={actionError} /> : null}
      <div className="actions left">
        <button type="button" className="primary" onClick={() => void exportReport()}>
          {t('report.export')}
        </button>
        {offerRetry ? (
          <button type="button" className="secondary" onClick={() => void retryFailed()}>
            {t('report.retry', { count: failedRows, n: formatCount(failedRows) })}
          </button>
        ) : null}
      </div>
      {offerRetry ? <p className="hint">{t('confirm.retryIntro')}</p> : null}
    </section>
  );
}

/** Every failed row of this batch was retried (and sent): where, with a way to open that batch. */
function RetriedAll({ retry }: { retry: RetryLeft }) {
  const { t } = useTranslation('batch');
  const openBatch = useBatch((s) => s.open);
  const later = retry.retriedIn;
  return (
    <div className="notice notice-info" role="status" data-testid="retried-all">
      <strong>
        {later
          ? t('report.retriedAll', { count: retry.failed, n: formatCount(retry.failed), name: later.fileName, state: t(`state.${later.state}`) })
          : t('report.retriedAllElsewhere')}
      </strong>
      {later ? (
        <div className="actions left">
          <button type="button" className="secondary small" onClick={() => void openBatch(later.batchId)}>
            {t('report.openRetry')}
          </button>
        </div>
      ) : null}
    </div>
  );
}
