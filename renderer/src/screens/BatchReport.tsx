/** After sending: the outcome in numbers, the report CSV for the accountant, and retrying the failed rows. */
import { useTranslation } from 'react-i18next';
import { batchFigures, type BatchDetail } from '../../../shared/api';
import { ErrorNotice } from '../components/common';
import { formatCount } from '../format/money';
import { useBatch } from '../stores';
import { downloadCsv } from '../components/download';

export function BatchReportCard({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const reportCsv = useBatch((s) => s.reportCsv);
  const retryFailed = useBatch((s) => s.retryFailed);
  const exported = useBatch((s) => s.exported);
  const actionError = useBatch((s) => s.actionError);
  const { counts, state } = detail.batch;
  const figures = batchFigures(counts);
  const stopped = state === 'done' || state === 'cancelled';
  // Refused, or created and then failed or cancelled (a row whose outcome is unknown is looked up, not retried).
  const failedRows = figures.failed;

  async function exportReport() {
    const file = await reportCsv();
    if (file) downloadCsv(file.filename, file.csv);
  }

  return (
    <section className="card" aria-labelledby="batch-report-title">
      <h2 id="batch-report-title">{t('report.heading')}</h2>
      <p>
        {t('report.summary', {
          completed: formatCount(figures.completed),
          failed: formatCount(figures.failed),
          unknown: formatCount(figures.unknown),
          pending: formatCount(figures.processing + figures.inFlight),
        })}
      </p>
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
        {stopped && failedRows > 0 ? (
          <button type="button" className="secondary" onClick={() => void retryFailed()}>
            {t('report.retry', { count: failedRows, n: formatCount(failedRows) })}
          </button>
        ) : null}
      </div>
      {stopped && failedRows > 0 ? <p className="hint">{t('confirm.retryIntro')}</p> : null}
    </section>
  );
}
