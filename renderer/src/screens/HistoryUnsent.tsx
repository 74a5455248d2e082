/**
 * History on a team workspace: the payouts and batches waiting for approval, a group above the
 * transactions (docs/decisions/history-shows-requests-not-sent.md). They are approval requests, not
 * transactions: the service knows none of them, so a row has no transaction status and no Verify;
 * it opens its approval card, where the maker sends it once approved. A sent request is its entry
 * below, never a row here.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApprovalRequest, SearchQuery } from '../../../shared/api';
import { formatCount, formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { useApprovals, useUi } from '../stores';
import type { UnsentFilter } from '../stores/approvals';

/** The journal query's filters a request has; null when the query asks for what a request cannot be (a status, a payment). */
export function unsentFilterOf(query: SearchQuery): UnsentFilter | null {
  if (query.status !== undefined || query.state !== undefined || query.kind === 'payment') return null;
  const { text, from, to, minAmount, maxAmount } = query;
  return Object.fromEntries(Object.entries({ text, from, to, minAmount, maxAmount }).filter(([, value]) => value !== undefined));
}

/** Where a request stands, as History says it: open (awaiting, ready to send) or closed and not sent. */
export function unsentState(request: ApprovalRequest): 'awaiting' | 'ready' | 'rejected' | 'withdrawn' | 'void' {
  return request.state === 'approved' ? 'ready' : request.state;
}

function UnsentRow({ request }: { request: ApprovalRequest }) {
  const { t } = useTranslation('history');
  const goTo = useUi((s) => s.goTo);
  const state = unsentState(request);
  const who = request.subject === 'payout' && request.request ? `${request.request.customer.first_name} ${request.request.customer.last_name}` : '';
  const amount = formatMoney(request.amount, request.currency);
  const stateWords = t(`unsent.state.${state}`);
  const what = request.subject === 'batch' ? t('unsent.batchWhat', { count: request.rows, formatted: formatCount(request.rows) }) : who;
  return (
    <li className="unsent-row" data-testid={`history-unsent-${request.id}`} data-state={state}>
      <button type="button" className="row-button" onClick={() => goTo({ screen: 'approvals', journalId: null, params: { request: String(request.id) } })}>
        <span className="sr-only">{t('unsent.rowLabel', { id: request.id, kind: t(`unsent.kind.${request.subject}`), amount, who: what, state: stateWords })}: </span>
        <span className="col-date muted">{formatDateTime(request.requestedAt)}</span>
        <span className="col-kind">{t(`unsent.kind.${request.subject}`)}</span>
        <span className="col-who" title={request.subject === 'payout' ? `${who} ${request.phoneNumber ?? ''}` : (request.batchId ?? '')}>
          <span className="who-name">{what}</span>
          <span className="who-phone mono muted small">{request.subject === 'payout' ? request.phoneNumber : request.batchId}</span>
        </span>
        <span className="col-ext" title={request.externalId ?? ''}>
          <span className="mono muted small">{request.externalId ?? ''}</span>
          <span className="row-mark">{t('unsent.request', { id: request.id })}</span>
        </span>
        <span className="col-amount">{amount}</span>
        <span className="col-status">
          <span className={`badge badge-approval badge-approval-${state}`}>{stateWords}</span>
        </span>
        <span className="col-code" />
      </button>
    </li>
  );
}

/** The group: read again when History's filters change and when a change event names approvals. */
export function HistoryUnsent({ query }: { query: SearchQuery }) {
  const { t } = useTranslation('history');
  const unsent = useApprovals((s) => s.unsent);
  const heard = useApprovals((s) => s.heard);
  const [requests, setRequests] = useState<ApprovalRequest[]>([]);
  const filter = unsentFilterOf(query);
  const key = filter === null ? null : JSON.stringify(filter);
  useEffect(() => {
    if (key === null) {
      setRequests([]);
      return undefined;
    }
    let current = true;
    void unsent(JSON.parse(key) as UnsentFilter).then((result) => {
      // A failed read leaves the group as it was: the transactions below are the screen's subject.
      if (current && result.ok) setRequests(result.value.requests);
    });
    return () => {
      current = false;
    };
  }, [key, heard, unsent]);
  if (requests.length === 0) return null;
  return (
    <section className="history-unsent" aria-labelledby="history-unsent-title">
      <h2 id="history-unsent-title">
        {t('unsent.title')} <span className="badge">{formatCount(requests.length)}</span>
      </h2>
      <p className="muted small">{t('unsent.intro')}</p>
      <ul className="history-unsent-list">
        {requests.map((request) => (
          <UnsentRow key={request.id} request={request} />
        ))}
      </ul>
    </section>
  );
}
