/** Pieces of the transaction screen: the facts list and the vertical event timeline. */
import type { JournalTransaction, TimelineEvent } from '../../../shared/api';
import { CopyButton } from '../components/common';
import { formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { describeFailure } from '../messages/errors';

function eventTitle(event: TimelineEvent): string {
  switch (event.type) {
    case 'request_sent':
      return 'Request sent';
    case 'response':
      return event.status ? `Service accepted it: ${event.status}` : 'Service answered';
    case 'api_error':
      return `Service refused it${event.code ? `: ${event.code}` : ''}`;
    case 'transport_failure':
      return event.outcome === 'not-sent' ? 'Could not be sent' : 'No answer: outcome unknown';
    case 'status_seen':
      // A lookup by external id that found nothing: the fact the resend decision rests on.
      if (event.code === 'NOT_FOUND') return 'Looked up: the service does not have it';
      return `Status seen: ${event.status ?? 'unknown'}`;
    case 'verify_result':
      return `Verified with the provider: ${event.status ?? 'no status'}`;
    case 'webhook_received':
      return `Webhook received: ${event.status ?? 'no status'}`;
    default: {
      const missing: never = event.type;
      return String(missing);
    }
  }
}

function eventDetail(event: TimelineEvent): string | null {
  if (event.type === 'api_error' && event.code) return describeFailure({ code: event.code, message: event.message ?? '' }).title;
  if (event.type === 'transport_failure') {
    return event.outcome === 'not-sent' ? 'Nothing reached the service.' : 'The request may have reached the service.';
  }
  // Main's messages often restate the title ("payment request sent"): show only what adds to it.
  const title = eventTitle(event).toLowerCase();
  if (!event.message || title.includes(event.message.toLowerCase()) || event.message.toLowerCase().includes(title)) return null;
  return event.message;
}

/** Newest first, whatever order the events arrive in. */
export function newestFirst(events: readonly TimelineEvent[]): TimelineEvent[] {
  return [...events].sort((a, b) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1));
}

export function Timeline({ events }: { events: readonly TimelineEvent[] }) {
  if (events.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline, newest first">
      {newestFirst(events).map((event) => {
        const detail = eventDetail(event);
        return (
          <li key={event.id} className={`event event-${event.type}`} data-status={event.status ?? undefined}>
            <span className="dot" aria-hidden="true" />
            <div>
              <div className="event-title">{eventTitle(event)}</div>
              <time dateTime={event.at} className="muted">
                {formatDateTime(event.at)}
              </time>
              {detail ? <div className="event-detail">{detail}</div> : null}
              {event.httpStatus ? <div className="muted small">HTTP {event.httpStatus}</div> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function IdRow({ label, value }: { label: string; value: string | null }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {value ? (
          <span className="id-value">
            <span className="mono">{value}</span> <CopyButton value={value} label={label.toLowerCase()} />
          </span>
        ) : (
          '—'
        )}
      </dd>
    </>
  );
}

export function TransactionFacts({ tx }: { tx: JournalTransaction }) {
  const method = tx.transaction?.payment_method?.name ?? tx.paymentMethod;
  const metadata = tx.metadata ? Object.entries(tx.metadata) : [];
  // The journal keeps the fee once a retrieve or verify has returned it; initiate answers carry none.
  const full = tx.transaction && 'fee' in tx.transaction ? tx.transaction : null;
  const fee = tx.fee ?? full?.fee ?? null;
  const net = tx.netAmount ?? full?.net_amount ?? null;
  const notYet = tx.state === 'known' ? 'Not known yet (Verify asks the service)' : 'Not known yet';
  return (
    <dl className="facts">
      <dt>Amount</dt>
      <dd className="amount">{formatMoney(tx.amount, tx.currency)}</dd>
      <dt>Fee</dt>
      <dd>{fee === null ? <span className="muted">{notYet}</span> : formatMoney(fee, tx.currency)}</dd>
      <dt>Net amount</dt>
      <dd>{net === null ? <span className="muted">{notYet}</span> : formatMoney(net, tx.currency)}</dd>
      <dt>Customer</dt>
      <dd>
        {tx.customer.first_name} {tx.customer.last_name}
        <div className="muted">{tx.customer.email}</div>
      </dd>
      <dt>Phone number</dt>
      <dd className="mono">{tx.phoneNumber}</dd>
      <dt>Method</dt>
      <dd>{method}</dd>
      <IdRow label="Transaction id" value={tx.transactionId} />
      <IdRow label="External id" value={tx.externalId} />
      <IdRow label="Journal id" value={tx.id} />
      <dt>Description</dt>
      <dd>{tx.description ?? '—'}</dd>
      <dt>Created</dt>
      <dd>{formatDateTime(tx.createdAt)}</dd>
      <dt>Last update</dt>
      <dd>{formatDateTime(tx.updatedAt)}</dd>
      <dt>Metadata</dt>
      <dd>
        {metadata.length === 0 ? (
          '—'
        ) : (
          <table className="kv">
            <tbody>
              {metadata.map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </dd>
    </dl>
  );
}
