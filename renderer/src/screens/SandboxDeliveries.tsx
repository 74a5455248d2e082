/** Webhook URL and the list of deliveries with their attempts and a redeliver button. */
import { useState } from 'react';
import { ErrorNotice, Empty } from '../components/common';
import { formatDateTime } from '../format/time';
import { useSandbox } from '../stores';
import { useControl } from './SandboxScreen';

export function SandboxDeliveries() {
  const engine = useSandbox((s) => s.engine);
  const deliveries = useSandbox((s) => s.deliveries);
  const deliveriesError = useSandbox((s) => s.deliveriesError);
  const load = useSandbox((s) => s.load);
  const setWebhookUrl = useSandbox((s) => s.setWebhookUrl);
  const redeliver = useSandbox((s) => s.redeliver);
  const control = useControl();
  const [url, setUrl] = useState(engine?.webhookUrl ?? '');
  /** What the engine confirmed after the last save: the person sees it took effect. */
  const [saved, setSaved] = useState<string | null>(null);
  async function saveUrl(): Promise<void> {
    setSaved(null);
    const value = url.trim();
    if (await control.run(() => setWebhookUrl(value))) {
      setSaved(value === '' ? 'Webhooks are off: no URL is set.' : `Saved: events are sent to ${value}.`);
    }
  }
  return (
    <div className="card">
      <h2>Webhooks</h2>
      <form className="inline-form" aria-label="Set the webhook URL" onSubmit={(e) => { e.preventDefault(); void saveUrl(); }}>
        <label className="grow">Webhook URL (empty to stop sending)
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:3000/webhooks" />
        </label>
        <button type="submit" className="secondary" disabled={control.busy}>Save webhook URL</button>
      </form>
      <p role="status" aria-label="Result of saving the webhook address" className="muted small">{saved ?? ''}</p>
      {control.failure ? <ErrorNotice failure={control.failure} /> : null}
      <div className="list-bar">
        <span>{deliveries.length} deliver{deliveries.length === 1 ? 'y' : 'ies'}</span>
        <button type="button" className="secondary small" onClick={() => void load()}>
          Refresh deliveries
        </button>
      </div>
      {deliveriesError ? (
        <p className="muted">{deliveriesError.message}</p>
      ) : deliveries.length === 0 ? (
        <Empty>No deliveries yet.</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr><th scope="col">Event</th><th scope="col">Transaction</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.eventType}<div className="muted small">{formatDateTime(d.createdAt)}</div></td>
                <td className="mono small">{d.transactionId}</td>
                <td><span className={`badge badge-delivery-${d.state}`}>{d.state}</span>{d.nextAttemptAt ? <div className="muted small">next {formatDateTime(d.nextAttemptAt)}</div> : null}</td>
                <td>
                  <ol className="attempts">
                    {d.attempts.map((a, i) => (
                      <li key={i}>
                        {formatDateTime(a.at)}: {a.httpStatus ? `HTTP ${a.httpStatus}` : a.error ?? 'no answer'} <span className="muted">({a.durationMs} ms)</span>
                      </li>
                    ))}
                  </ol>
                </td>
                <td><button type="button" className="secondary small" onClick={() => void control.run(() => redeliver(d.id))} aria-label={`Redeliver ${d.eventType} for ${d.transactionId}`}>Redeliver</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
