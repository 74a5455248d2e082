/** Webhook URL and the list of deliveries with their attempts and a redeliver button. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorNotice, Empty } from '../components/common';
import { LoadMore } from '../components/LoadMore';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import { describeFailure } from '../messages/errors';
import { useSandbox } from '../stores';
import { useControl } from '../components/useControl';
import { WebhookSigning } from './SandboxAccess';

export function SandboxDeliveries() {
  const { t } = useTranslation(['sandbox', 'status']);
  const engine = useSandbox((s) => s.engine);
  const deliveries = useSandbox((s) => s.deliveries);
  const deliveriesError = useSandbox((s) => s.deliveriesError);
  const deliveriesNext = useSandbox((s) => s.deliveriesNext);
  const moreDeliveries = useSandbox((s) => s.moreDeliveries);
  const load = useSandbox((s) => s.load);
  const setWebhookUrl = useSandbox((s) => s.setWebhookUrl);
  const redeliver = useSandbox((s) => s.redeliver);
  const control = useControl();
  const [url, setUrl] = useState(engine?.webhookUrl ?? '');
  /** What the engine confirmed after the last save: the person sees it took effect. */
  const [saved, setSaved] = useState<string | null>(null);
  /** What the last Redeliver did, in words. */
  const [redelivered, setRedelivered] = useState<string | null>(null);
  async function saveUrl(): Promise<void> {
    setSaved(null);
    const value = url.trim();
    if (await control.run(() => setWebhookUrl(value))) {
      setSaved(value === '' ? t('webhooks.savedOff') : t('webhooks.savedOn', { url: value }));
    }
  }
  return (
    <div className="card">
      <h2>{t('webhooks.title')}</h2>
      <form className="inline-form" aria-label={t('webhooks.form')} onSubmit={(e) => { e.preventDefault(); void saveUrl(); }}>
        <label className="grow">{t('webhooks.url')}
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:3000/webhooks" />
        </label>
        <button type="submit" className="secondary" disabled={control.busy}>{t('webhooks.save')}</button>
      </form>
      <p role="status" aria-label={t('webhooks.resultLabel')} className="muted small">{saved ?? ''}</p>
      <WebhookSigning />
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
      {redelivered ? <p className="notice notice-info" role="status">{redelivered}</p> : null}
      <div className="list-bar">
        <span>
          {t('webhooks.deliveries', { count: deliveries.length, formatted: formatCount(deliveries.length) })} <span className="muted small">{t('webhooks.live')}</span>
        </span>
        <button type="button" className="secondary small" onClick={() => void load()}>
          {t('webhooks.refresh')}
        </button>
      </div>
      {deliveriesError ? (
        <p className="muted">{t('webhooks.unavailable')} {describeFailure(deliveriesError).title}</p>
      ) : deliveries.length === 0 ? (
        <Empty>{t('webhooks.empty')}</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr><th scope="col">{t('webhooks.event')}</th><th scope="col">{t('webhooks.transaction')}</th><th scope="col">{t('webhooks.state')}</th><th scope="col">{t('webhooks.attempts')}</th><th scope="col"><span className="sr-only">{t('webhooks.actions')}</span></th></tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.eventType}<div className="muted small">{formatDateTime(d.createdAt)}</div></td>
                <td className="mono small">{d.transactionId}</td>
                <td>
                  <span className={`badge badge-delivery-${d.state}`}>{t(`status:delivery.${d.state}`)}</span>
                  {/* Why: what webhook chaos or the transaction's scenario did to it, not a plain FAILED / PENDING. */}
                  {(d.chaos ?? []).map((c, i) => (
                    <div key={i} className="small delivery-chaos">
                      {t(`webhooks.chaos.${c.effect}`, { seconds: formatCount(c.seconds ?? 0) })} {c.source === 'scenario' ? t('webhooks.byScenario', { id: c.scenarioId ?? '' }) : t('webhooks.byChaos')}
                    </div>
                  ))}
                  {d.nextAttemptAt ? <div className="muted small">{t('webhooks.next', { at: formatDateTime(d.nextAttemptAt) })}</div> : null}
                </td>
                <td>
                  <ol className="attempts">
                    {d.attempts.map((a, i) => (
                      <li key={i}>
                        {formatDateTime(a.at)}: {a.httpStatus ? `HTTP ${a.httpStatus}` : a.error ?? t('webhooks.noAnswer')} <span className="muted">({formatCount(a.durationMs)} ms)</span>
                      </li>
                    ))}
                  </ol>
                </td>
                <td><button type="button" className="secondary small" onClick={() => {
                    setRedelivered(null);
                    void control.run(() => redeliver(d.id)).then((ok) => setRedelivered(ok ? t('webhooks.redelivered', { event: d.eventType, id: d.transactionId }) : null));
                  }} aria-label={t('webhooks.redeliverLabel', { event: d.eventType, id: d.transactionId })}>{t('webhooks.redeliver')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deliveriesError || deliveries.length === 0 ? null : <LoadMore label={t('webhooks.more')} next={deliveriesNext} onMore={moreDeliveries} />}
    </div>
  );
}
