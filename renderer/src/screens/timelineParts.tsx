/** Pieces of the transaction screen: the facts list and the vertical event timeline. */
import { useTranslation } from 'react-i18next';
// Zod-free modules, not the indexes: see HistoryScreen.tsx (issue 28).
import { ALREADY_EXISTS_CODE, type JournalTransaction, type TimelineEvent } from '../../../shared/api/types';
import { chargesNothing } from '../../../shared/contract/charges';
import { isListedStatus } from '../../../shared/contract/codes';
import { CopyButton, OriginalWords } from '../components/common';
import { formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { currentLanguage, t } from '../i18n';
import { describeServiceError } from '../messages/errors';
import { useProfiles } from '../stores';
import { senderHolds } from '../stores/profiles';
import { adoptedWords } from './adoptedParts';

/** A status in words, in the current language (codes never reach the user as such). */
export function statusWord(status: string | null): string {
  if (!status) return t('transaction:noStatus');
  return isListedStatus(status) ? t(`transaction:status.${status}`) : t('status:unlisted', { status });
}

export function eventTitle(event: TimelineEvent): string {
  const status = statusWord(event.status);
  switch (event.type) {
    case 'request_sent':
      return t('transaction:event.request_sent');
    case 'response':
      return event.status ? t('transaction:event.response', { status }) : t('transaction:event.responseNoStatus');
    case 'api_error':
      // The service already had this external id: not a refusal of the payout, which is looked up and adopted.
      if (event.code === ALREADY_EXISTS_CODE) return t('transaction:event.alreadyExists');
      return event.code ? t('transaction:event.api_error', { code: event.code }) : t('transaction:event.api_errorNoCode');
    case 'transport_failure':
      return event.outcome === 'not-sent' ? t('transaction:event.notSent') : t('transaction:event.unknown');
    case 'status_seen':
      // A lookup by external id that found nothing: the fact the resend decision rests on.
      if (event.code === 'NOT_FOUND') return t('transaction:event.notFound');
      return t('transaction:event.status_seen', { status: event.status ? status : t('transaction:unknownStatus') });
    case 'verify_result':
      return t('transaction:event.verify_result', { status });
    case 'sandbox_status':
      return t('transaction:event.sandbox_status', { status });
    default: {
      const missing: never = event.type;
      return String(missing);
    }
  }
}

/** Notes main writes that only restate the event's type (the title already says it, in the user's language). */
const JOURNAL_NOTES = new Set([
  'payment request sent',
  'payout request sent',
  'status seen while watching',
  'looked up',
  'found by its external id',
  'status changed in the local sandbox',
  'verified',
]);

/** Our own sentence, or the service's words kept as it said them (quoted and labelled in French). */
type EventDetail = string | { theirs: string };

function eventDetail(event: TimelineEvent, kind: 'payment' | 'payout'): EventDetail | null {
  // The service's initiate message speaks of a customer approving a prompt, for payouts too:
  // a payout's recipient approves nothing, it receives money.
  // Both are said in the user's language rather than quoting the service's English sentence.
  if (event.type === 'response') return t(kind === 'payout' ? 'transaction:event.payoutAccepted' : 'transaction:event.paymentAccepted');
  if (event.type === 'api_error' && event.code === ALREADY_EXISTS_CODE) return t('transaction:event.alreadyExistsDetail');
  if (event.type === 'api_error' && event.code) return describeServiceError({ code: event.code, message: event.message });
  if (event.type === 'transport_failure') {
    return event.outcome === 'not-sent' ? t('transaction:event.notSentDetail') : t('transaction:event.unknownDetail');
  }
  // The journal's note or the service's message, when it adds to the title (data, not UI text).
  const title = eventTitle(event).toLowerCase();
  const message = event.message?.toLowerCase() ?? '';
  if (!message || title.includes(message) || message.includes(title) || JOURNAL_NOTES.has(message)) return null;
  return { theirs: event.message ?? '' };
}

/** Newest first, whatever order the events arrive in. */
export function newestFirst(events: readonly TimelineEvent[]): TimelineEvent[] {
  return [...events].sort((a, b) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1));
}

export function Timeline({ events, kind = 'payment' }: { events: readonly TimelineEvent[]; kind?: 'payment' | 'payout' }) {
  const { t: tr } = useTranslation('transaction');
  if (events.length === 0) return <p className="muted">{tr('noEvents')}</p>;
  return (
    <ol className="timeline" aria-label={tr('timelineLabel')}>
      {newestFirst(events).map((event) => {
        const detail = eventDetail(event, kind);
        return (
          <li key={event.id} className={`event event-${event.type}`} data-status={event.status ?? undefined}>
            <span className="dot" aria-hidden="true" />
            <div>
              <div className="event-title">{eventTitle(event)}</div>
              <time dateTime={event.at} className="muted">
                {formatDateTime(event.at)}
              </time>
              {typeof detail === 'string' ? <div className="event-detail">{detail}</div> : null}
              {detail !== null && typeof detail === 'object' ? (
                currentLanguage() === 'en' ? <div className="event-detail">{detail.theirs}</div> : <div className="event-detail"><OriginalWords words={detail.theirs} /></div>
              ) : null}
              {event.httpStatus ? <div className="muted small">{tr('event.http', { status: event.httpStatus })}</div> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function IdRow({ label, copyLabel, value }: { label: string; copyLabel: string; value: string | null }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {value ? (
          <span className="id-value">
            <span className="mono">{value}</span> <CopyButton value={value} label={copyLabel} />
          </span>
        ) : (
          t('transaction:facts.none')
        )}
      </dd>
    </>
  );
}

/**
 * The money of a transaction, one consistent set per kind. A payment: amount, fee, net amount
 * (what reaches the merchant). A payout: amount sent, fee, total taken from the wallet (the
 * figures the confirm step showed). A failed or cancelled one charged nothing: no fee, no net.
 */
function MoneyFacts({ tx }: { tx: JournalTransaction }) {
  const { t: tr } = useTranslation('transaction');
  // The journal keeps the fee once a retrieve or verify has returned it; initiate answers carry none.
  const full = tx.transaction && 'fee' in tx.transaction ? tx.transaction : null;
  const fee = tx.fee ?? full?.fee ?? null;
  const net = tx.netAmount ?? full?.net_amount ?? null;
  const notCharged = chargesNothing(tx.status);
  // A sender-held profile's entry offers no Verify (only the sender reads the service for it): no pointer to it.
  const bySender = useProfiles((s) => senderHolds(s, tx.profileId));
  const notYet = <span className="muted">{tx.state === 'known' && !bySender ? tr('facts.notYetVerify') : tr('facts.notYet')}</span>;
  const charged = (value: number | null) =>
    notCharged ? <span className="muted">{tr('facts.notCharged', { kind: tr(`kindWord.${tx.kind}`) })}</span> : value === null ? notYet : formatMoney(value, tx.currency);
  if (tx.kind === 'payout') {
    // "Sent" only once the service says it went through; a failed or cancelled payout sent nothing.
    const amountLabel = tx.status === 'completed' ? 'facts.amountSent' : notCharged ? 'facts.amountAsked' : 'facts.amount';
    return (
      <>
        <dt>{tr(amountLabel)}</dt>
        <dd className="amount">{formatMoney(tx.amount, tx.currency)}</dd>
        <dt>{tr('facts.fee')}</dt>
        <dd>{charged(fee)}</dd>
        <dt>{tr('facts.total')}</dt>
        <dd>{charged(fee === null ? null : tx.amount + fee)}</dd>
      </>
    );
  }
  return (
    <>
      <dt>{tr('facts.amount')}</dt>
      <dd className="amount">{formatMoney(tx.amount, tx.currency)}</dd>
      <dt>{tr('facts.fee')}</dt>
      <dd>{charged(fee)}</dd>
      <dt>{tr('facts.net')}</dt>
      <dd>{charged(net)}</dd>
    </>
  );
}

export function TransactionFacts({ tx }: { tx: JournalTransaction }) {
  const { t: tr } = useTranslation('transaction');
  const method = tx.transaction?.payment_method?.name ?? tx.paymentMethod;
  const metadata = tx.metadata ? Object.entries(tx.metadata) : [];
  return (
    <dl className="facts">
      <MoneyFacts tx={tx} />
      <dt>{tx.kind === 'payout' ? tr('facts.recipient') : tr('facts.customer')}</dt>
      <dd>
        {tx.customer.first_name} {tx.customer.last_name}
        <div className="muted">{tx.customer.email}</div>
      </dd>
      <dt>{tr('facts.phone')}</dt>
      <dd className="mono">{tx.phoneNumber}</dd>
      <dt>{tr('facts.method')}</dt>
      <dd>{method}</dd>
      <IdRow label={tr('facts.transactionId')} copyLabel={tr('facts.copyTransactionId')} value={tx.transactionId} />
      <IdRow label={tr('facts.externalId')} copyLabel={tr('facts.copyExternalId')} value={tx.externalId} />
      {tx.retryOf ? (
        <>
          <dt>{tr('facts.retryOf')}</dt>
          <dd className="mono">{tx.retryOf}</dd>
        </>
      ) : null}
      {tx.alreadySent ? (
        <>
          <dt>{tr('facts.alreadySent')}</dt>
          <dd data-testid="already-sent">
            {tx.adoptedDiffers ? <strong className="text-warn">{tr('facts.adoptedDiffers', { ...adoptedWords(tx.adoptedDiffers), kind: tr(`kindWord.${tx.kind}`) })}</strong> : tr('facts.alreadySentBody')}
          </dd>
        </>
      ) : null}
      <IdRow label={tr('facts.journalId')} copyLabel={tr('facts.copyJournalId')} value={tx.id} />
      <dt>{tr('facts.description')}</dt>
      <dd>{tx.description ?? tr('facts.none')}</dd>
      <dt>{tr('facts.created')}</dt>
      <dd>{formatDateTime(tx.createdAt)}</dd>
      <dt>{tr('facts.updated')}</dt>
      <dd>{formatDateTime(tx.updatedAt)}</dd>
      <dt>{tr('facts.metadata')}</dt>
      <dd>
        {metadata.length === 0 ? (
          tr('facts.none')
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
