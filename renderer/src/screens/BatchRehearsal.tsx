/** The rehearsal: the same rows on the local sandbox engine, and which of them would fail. */
import { useTranslation } from 'react-i18next';
import type { BatchDetail } from '../../../shared/api';
import { ErrorNotice, Spinner, statusLabel } from '../components/common';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import { describeFailedCode, describeServiceError } from '../messages/errors';
import type { RehearsalRowResult } from '../../../shared/api';

/** What a rehearsed row would meet, in a sentence: a payout's failure, or the service's refusal. */
function rehearsalSentence(result: RehearsalRowResult | null): string {
  if (!result) return '';
  if (result.failedCode) return describeFailedCode(result.failedCode, 'payout') ?? '';
  if (result.code) return describeServiceError({ code: result.code, message: result.message });
  return result.status ? statusLabel(result.status) : '';
}
import { useBatch } from '../stores';


export function BatchRehearsalCard({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation('batch');
  const rehearsing = useBatch((s) => s.rehearsing);
  const rehearse = useBatch((s) => s.rehearse);
  const progress = useBatch((s) => (s.progress?.mode === 'rehearsal' ? s.progress : null));
  const summary = detail.rehearsal;
  const wouldFail = useBatch((s) => s.wouldFail);
  const failing = wouldFail?.rows ?? [];
  const blocked = detail.batch.counts.invalid > 0 || detail.batch.counts.valid === 0;
  return (
    <section className="card" aria-labelledby="batch-rehearsal-title">
      <h2 id="batch-rehearsal-title">{t('rehearsal.heading')}</h2>
      <p className="muted small">{t('rehearsal.intro')}</p>
      {rehearsing.running ? (
        <p role="status">
          <Spinner label={t('rehearsal.run')} />{' '}
          {progress ? t('rehearsal.running', { done: formatCount(progress.sent), total: formatCount(progress.sent + progress.remaining) }) : t('rehearsal.run')}
        </p>
      ) : null}
      {rehearsing.error ? <ErrorNotice failure={rehearsing.error} /> : null}
      {summary && !rehearsing.running ? (
        <div role="status" aria-label={t('rehearsal.heading')}>
          <p className="muted small">{formatDateTime(summary.at)}</p>
          {summary.wouldFail === 0 ? (
            <p className="stored">{t('rehearsal.allPass', { count: summary.rows, n: formatCount(summary.rows) })}</p>
          ) : (
            <>
              <p className="field-error">{t('rehearsal.failures', { count: summary.wouldFail, n: formatCount(summary.wouldFail) })}</p>
              <div className="rehearsal-failures">
                <table className="table">
                  <thead>
                    <tr>
                      <th>{t('table.row')}</th>
                      <th>{t('columns.phone_number')}</th>
                      <th>{t('rehearsal.outcomeColumn')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {failing.map((row) => (
                      <tr key={row.rowNumber}>
                        <td>{formatCount(row.rowNumber)}</td>
                        <td className="mono">{row.values.phone_number}</td>
                        <td>
                          {/* The sentence first; the code under it, for support. */}
                          <span>{rehearsalSentence(row.rehearsal)}</span>{' '}
                          {/* A code only: a bare status (cancelled) is already the sentence, in the user's language. */}
                          <span className="code">{row.rehearsal?.failedCode ?? row.rehearsal?.code ?? ''}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {(wouldFail?.total ?? 0) > failing.length ? <p className="muted small">{t('rehearsal.more', { n: formatCount((wouldFail?.total ?? 0) - failing.length) })}</p> : null}
              </div>
            </>
          )}
        </div>
      ) : null}
      {!summary && !rehearsing.running ? <p className="muted">{t('rehearsal.notRun')}</p> : null}
      <div className="actions left">
        <button type="button" className="secondary" disabled={blocked || rehearsing.running} onClick={() => void rehearse()}>
          {summary ? t('rehearsal.again') : t('rehearsal.run')}
        </button>
      </div>
    </section>
  );
}
