/**
 * Audit (issue 25 item 5): the workspace's audit log, newest first, with filters (who, action,
 * days, subject text), a table (when, who, action, subject, before and after summarized, remark),
 * older lines on demand, and Export CSV of every line the filters keep (main writes the file with
 * the one CSV writer). On a single desktop the log does not exist and the screen says why.
 */
import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_ACTIONS, changeSummary, type AuditEntry } from '../../../shared/api';
import { Screen } from '../components/Screen';
import { ErrorNotice, Loading } from '../components/common';
import { downloadCsv } from '../components/download';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import { currentLanguage } from '../i18n';
import { useAudit } from '../stores';
import { EMPTY_AUDIT_FILTER, type AuditFilterForm } from '../stores/audit';

function AuditFilters() {
  const { t } = useTranslation('audit');
  const applied = useAudit((s) => s.form);
  const load = useAudit((s) => s.load);
  const [form, setForm] = useState<AuditFilterForm>(applied);
  const set = (key: keyof AuditFilterForm) => (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setForm({ ...form, [key]: e.target.value });
  const reversed = form.fromDay !== '' && form.toDay !== '' && form.fromDay > form.toDay;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!reversed) void load(form);
  };
  return (
    <form className="card filters" onSubmit={submit} aria-label={t('filters')}>
      <div className="field">
        <label htmlFor="audit-actor">{t('actor')}</label>
        <input id="audit-actor" value={form.actor} onChange={set('actor')} maxLength={200} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="audit-action">{t('action')}</label>
        <select id="audit-action" value={form.action} onChange={set('action')}>
          <option value="">{t('anyAction')}</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {t(`actions.${action}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-from">{t('from')}</label>
        <input id="audit-from" type="date" value={form.fromDay} onChange={set('fromDay')} aria-invalid={reversed || undefined} aria-describedby={reversed ? 'audit-from-error' : undefined} />
        {reversed ? (
          <p id="audit-from-error" className="field-error" role="alert">
            {t('fromAfterTo')}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="audit-to">{t('to')}</label>
        <input id="audit-to" type="date" value={form.toDay} onChange={set('toDay')} />
      </div>
      <div className="field grow">
        <label htmlFor="audit-subject">{t('subject')}</label>
        <input id="audit-subject" type="search" value={form.subject} onChange={set('subject')} maxLength={200} />
      </div>
      <div className="filter-actions">
        <button type="submit" className="secondary">
          {t('apply')}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setForm(EMPTY_AUDIT_FILTER);
            void load(EMPTY_AUDIT_FILTER);
          }}
        >
          {t('clear')}
        </button>
      </div>
    </form>
  );
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation('audit');
  return (
    <tr>
      <td className="nowrap">{formatDateTime(entry.at)}</td>
      <td className="mono nowrap">{entry.actor}</td>
      <td>{t(`actions.${entry.action}`)}</td>
      <td className="mono small subject">{entry.subject ?? ''}</td>
      <td className="small change">{changeSummary(entry.before)}</td>
      <td className="small change">{changeSummary(entry.after)}</td>
      <td className="small">{entry.remark ?? ''}</td>
    </tr>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const { t } = useTranslation('audit');
  return (
    // Focusable and named: it may scroll sideways, and a keyboard must reach what it hides (axe).
    <div className="audit-scroll" role="region" aria-label={t('caption')} tabIndex={0}>
      <table className="table small audit-table">
        <caption className="sr-only">{t('caption')}</caption>
        <thead>
          <tr>
            {(['at', 'actor', 'action', 'subject', 'before', 'after', 'remark'] as const).map((column) => (
              <th key={column} scope="col">
                {t(`column.${column}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <AuditRow key={entry.id} entry={entry} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function AuditScreen() {
  const { t } = useTranslation('audit');
  const state = useAudit((s) => s);
  useEffect(() => {
    void state.load();
    // Read when the screen opens; Apply filters and Clear read it again, and so does a line written
    // anywhere on the workspace (the journal's change events, stores/index.ts): no polling.
  }, []);
  const runExport = async () => {
    const file = await state.exportCsv(currentLanguage());
    if (file) downloadCsv(file.filename, file.csv);
  };
  return (
    <Screen id="audit" title={t('title')} intro={t('intro')} width="wide">
      {state.status === 'ready' && !state.available ? (
        <p className="notice notice-info">{t('unavailable')}</p>
      ) : (
        <>
          <AuditFilters />
          <div className="list-bar">
            <span />
            <button type="button" className="secondary" onClick={() => void runExport()} disabled={state.status !== 'ready' || state.entries.length === 0}>
              {t('export')}
            </button>
          </div>
          {state.exported ? (
            <div className="notice notice-info" role="status">
              {t('exported', { count: state.exported.rows, n: formatCount(state.exported.rows), filename: state.exported.filename })}
            </div>
          ) : null}
          {state.error ? <ErrorNotice failure={state.error} /> : null}
          {state.status === 'loading' || state.status === 'idle' ? <Loading label={t('loading')} /> : null}
          {state.status === 'ready' && state.entries.length === 0 ? <p className="muted">{t('empty')}</p> : null}
          {state.status === 'ready' && state.entries.length > 0 ? <AuditTable entries={state.entries} /> : null}
          {state.status === 'ready' && state.nextBefore !== null ? (
            <button type="button" className="secondary" onClick={() => void state.more()}>
              {t('more')}
            </button>
          ) : null}
        </>
      )}
    </Screen>
  );
}
