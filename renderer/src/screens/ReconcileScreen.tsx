/**
 * Reconcile: import the merchant's CSV (read here, sent as text, checked in main), follow the
 * run's progress with cancel and resume, read the report, reopen earlier runs.
 */
import { useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { DEFAULT_PROCESSING_MINUTES, type ReconcileRowError } from '../../../shared/api/reconcile';
import { ErrorNotice, Spinner, storedProfileName } from '../components/common';
import { formatCount } from '../format/money';
import { dayBoundIso, formatDateTime } from '../format/time';
import { useReconcile } from '../stores';
import { IgnoredColumns, ReconcileReport } from './ReconcileReport';
import '../reconcile.css';
import { Screen } from '../components/Screen';
import { useOpenInAddress } from '../components/useOpenInAddress';
import { FollowUpRefusedNote, useMayFollowUp } from '../components/WorkspaceBar';

function ImportForm() {
  const { t } = useTranslation('reconcile');
  const upload = useReconcile((s) => s.upload);
  const importFile = useReconcile((s) => s.importFile);
  const fileInput = useRef<HTMLInputElement>(null);
  const [minutes, setMinutes] = useState(String(DEFAULT_PROCESSING_MINUTES));
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const busy = upload.phase === 'sending' || upload.phase === 'checking';
  const mayReconcile = useMayFollowUp();

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) return setProblem(t('file.noFile'));
    const processingMinutes = Number(minutes);
    if (!/^\d+$/.test(minutes.trim()) || processingMinutes > 10_080) return setProblem(t('file.minutesInvalid'));
    const period = from && to ? { from: dayBoundIso(from, false)!, to: dayBoundIso(to, true)! } : undefined;
    if (period && Date.parse(period.from) > Date.parse(period.to)) return setProblem(t('file.periodOrder'));
    setProblem(null);
    let text: string;
    try {
      text = await file.text();
    } catch {
      return setProblem(t('file.unreadable'));
    }
    await importFile(file.name, text, { processingMinutes, ...(period ? { period } : {}) });
  }

  return (
    <form className="card reconcile-form" onSubmit={(e) => void submit(e)} aria-label={t('file.legend')}>
      <div className="field grow">
        <label htmlFor="rc-file">{t('file.choose')}</label>
        <input id="rc-file" ref={fileInput} type="file" accept=".csv,text/csv" aria-describedby="rc-file-help" />
        <p id="rc-file-help" className="muted small">
          <Trans t={t} i18nKey="file.help" components={{ c: <code /> }} />
        </p>
      </div>
      <div className="field narrow">
        <label htmlFor="rc-minutes">{t('file.minutes')}</label>
        <input id="rc-minutes" inputMode="numeric" value={minutes} onChange={(e) => setMinutes(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="rc-from">{t('file.from')}</label>
        <input id="rc-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} aria-describedby="rc-period-help" />
      </div>
      <div className="field">
        <label htmlFor="rc-to">{t('file.to')}</label>
        <input id="rc-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} aria-describedby="rc-period-help" />
      </div>
      <div className="reconcile-form-actions">
        <button type="submit" className="primary" disabled={busy || !mayReconcile}>{t('file.start')}</button>
        <p id="rc-period-help" className="muted small">{t('file.periodHelp')}</p>
      </div>
      {problem ? <div className="notice notice-error" role="alert">{problem}</div> : null}
      {upload.phase === 'sending' ? <div className="notice notice-info" role="status"><Spinner label={t('file.sending', { percent: upload.percent })} /> {t('file.sending', { percent: upload.percent })}</div> : null}
      {upload.phase === 'checking' ? <div className="notice notice-info" role="status"><Spinner label={t('file.checking')} /> {t('file.checking')}</div> : null}
      {upload.failure ? <ErrorNotice failure={upload.failure} /> : null}
    </form>
  );
}

function ImportErrors() {
  const { t } = useTranslation('reconcile');
  const rejected = useReconcile((s) => s.upload.rejected);
  /** The error in the user's language: its code picks the sentence, its params fill it (the kind and counts translated too). */
  const rowErrorText = (error: ReconcileRowError) => {
    const params: Record<string, string | number> = { ...error.params };
    if (params.kind === 'payment' || params.kind === 'payout') params.kind = t(`kind.${params.kind}`);
    if (typeof params.max === 'number') params.max = formatCount(params.max);
    const translate = t as unknown as (key: string, options: Record<string, string | number>) => string;
    return translate(`rowError.${error.code}`, params);
  };
  if (!rejected) return null;
  return (
    <div className="notice notice-error reconcile-errors" role="alert">
      <strong>{t('errors.title', { count: rejected.errorCount })}</strong>
      {rejected.errorCount > rejected.errors.length ? <p>{t('errors.shown', { shown: formatCount(rejected.errors.length) })}</p> : null}
      <IgnoredColumns columns={rejected.ignoredColumns} />
      <table>
        <thead>
          <tr>
            <th scope="col">{t('errors.row')}</th>
            <th scope="col">{t('errors.column')}</th>
            <th scope="col">{t('errors.message')}</th>
          </tr>
        </thead>
        <tbody>
          {rejected.errors.map((error, index) => (
            <tr key={index}>
              <td>{formatCount(error.row)}</td>
              <td className="mono">{error.column}</td>
              <td>{rowErrorText(error)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunProgress() {
  const { t } = useTranslation('reconcile');
  const current = useReconcile((s) => s.current)!;
  const cancel = useReconcile((s) => s.cancel);
  const resume = useReconcile((s) => s.resume);
  const verifying = current.phase === 'verifying' && current.verify;
  const done = verifying ? current.verify!.done : current.checkedRows;
  const total = verifying ? current.verify!.total : current.totalRows;
  const label = verifying
    ? t('progress.verifying', { count: total, done: formatCount(done), total: formatCount(total) })
    : t('progress.matching', { count: total, checked: formatCount(done), total: formatCount(total) });
  const stopped = current.status === 'cancelled' || current.status === 'interrupted';
  return (
    <div className={`card reconcile-progress reconcile-${current.status}`}>
      <div className="reconcile-progress-line">
        <span className={`pill pill-${current.status}`}>{t(`status.${current.status}`)}</span>
        <span>{label}</span>
        {current.status === 'running' ? <button type="button" className="secondary" onClick={() => void cancel()}>{t('progress.cancel')}</button> : null}
        {stopped ? <button type="button" className="primary" onClick={() => void resume()}>{t('progress.resume')}</button> : null}
      </div>
      <progress aria-label={t('progress.label')} max={Math.max(total, 1)} value={done} />
      {stopped ? <p className="muted">{t(`statusNote.${current.status as 'cancelled' | 'interrupted'}`, { checked: formatCount(current.checkedRows), total: formatCount(current.totalRows) })}</p> : null}
      {current.rateLimitWaits > 0 ? <p className="muted small">{t('progress.waits', { count: current.rateLimitWaits })}</p> : null}
    </div>
  );
}

function EarlierRuns() {
  const { t } = useTranslation('reconcile');
  const list = useReconcile((s) => s.list);
  const open = useReconcile((s) => s.open);
  const currentId = useReconcile((s) => s.current?.id);
  return (
    <section className="card" aria-labelledby="rc-history">
      <h2 id="rc-history">{t('report.history')}</h2>
      {list.length === 0 ? <p className="muted">{t('report.historyEmpty')}</p> : null}
      <ul className="reconcile-runs">
        {list.map((run) => (
          <li key={run.id} aria-current={run.id === currentId ? 'true' : undefined}>
            <span className="grow">
              <strong>{run.fileName}</strong> <span className="muted small">{formatDateTime(run.createdAt)} · {t('report.runRows', { count: run.totalRows, rows: formatCount(run.totalRows) })} · {storedProfileName(run.profileId, run.profileName)}</span>
            </span>
            <span className={`pill pill-${run.status}`}>{t(`status.${run.status}`)}</span>
            <button type="button" className="secondary small" onClick={() => void open(run.id)} aria-label={`${t('report.reopen')} ${run.fileName} ${formatDateTime(run.createdAt)}`}>
              {t('report.reopen')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ReconcileScreen() {
  const { t } = useTranslation('reconcile');
  const current = useReconcile((s) => s.current);
  const failure = useReconcile((s) => s.failure);
  const loadList = useReconcile((s) => s.loadList);
  const open = useReconcile((s) => s.open);
  const close = useReconcile((s) => s.close);
  useEffect(() => {
    void loadList();
  }, [loadList]);
  // `#/reconcile?report=<id>`: a reload or Back keeps the report open.
  useOpenInAddress('report', current?.id ?? null, (id) => void open(id), close);
  return (
    <Screen id="reconcile" title={t('title')} intro={t('intro')} width="full">
      <FollowUpRefusedNote />
      <ImportForm />
      <ImportErrors />
      {failure ? <ErrorNotice failure={failure} /> : null}
      {current ? (
        <>
          <RunProgress />
          <ReconcileReport />
        </>
      ) : null}
      <EarlierRuns />
    </Screen>
  );
}
