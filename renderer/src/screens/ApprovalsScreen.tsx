/**
 * Approvals (issue 25): on a team workspace, what waits for this login's approval (who asked,
 * when, the amount or a batch's total and rows, the environment) with Approve and Reject and a
 * remark, and what this login asked, with Withdraw while it is open. Who voted is shown on each
 * request. The rules are the database's: this screen only asks, and says what it answered.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, ApprovalRequest, BatchRow, EarlierImport } from '../../../shared/api';
import { Screen } from '../components/Screen';
import { ErrorNotice, Loading, Spinner, profileName } from '../components/common';
import { formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { useApprovals, useBatch, useProfiles, useUi } from '../stores';
import { useSingleFlight } from '../components/useSingleFlight';
import { askNotifications, notificationsAskable } from '../stores/approval-notices';
import { ApprovalVotes } from './ApprovalTrail';
import { approvalStep, ApprovalSteps } from './ApprovalSteps';
import { ApprovalPolicy } from './ApprovalPolicy';

const STATE_BADGE: Record<ApprovalRequest['state'], string> = { awaiting: 'badge-processing', approved: 'badge-completed', rejected: 'badge-failed', withdrawn: 'badge-cancelled', void: 'badge-cancelled' };

function useWhat() {
  const { t } = useTranslation('approvals');
  return (request: ApprovalRequest) =>
    t('card', { subject: t(`subject.${request.subject}`), amount: formatMoney(request.amount, request.currency), who: request.requestedBy });
}

function Facts({ request }: { request: ApprovalRequest }) {
  const { t } = useTranslation('approvals');
  const navigate = useUi((s) => s.navigate);
  const openBatch = useBatch((s) => s.open);
  const bound = request.request;
  // A desktop's own profile has no name in the workspace: this console's, when it is one of its own (the built-in sandbox in the screen's language).
  const own = useProfiles((s) => s.profiles.find((p) => p.id === request.profileId) ?? null);
  const profile = request.profileName ?? (own ? profileName(own) : request.profileId);
  return (
    <dl className="facts compact">
      <dt>{request.subject === 'batch' ? t('field.total') : t('field.amount')}</dt>
      <dd>{formatMoney(request.amount, request.currency)}</dd>
      {bound ? (
        <>
          <dt>{t('field.recipient')}</dt>
          <dd>
            {bound.customer.first_name} {bound.customer.last_name} · <span className="mono">{bound.phone_number}</span>
          </dd>
          <dt>{t('field.description')}</dt>
          <dd>{bound.description ? bound.description : <span className="muted">{t('field.noDescription')}</span>}</dd>
        </>
      ) : null}
      {request.subject === 'batch' ? (
        <>
          <dt>{t('field.rows')}</dt>
          <dd>{request.rows}</dd>
        </>
      ) : null}
      {profile ? (
        <>
          <dt>{t('field.profile')}</dt>
          <dd>
            {profile}
            {request.accountUrl ? <span className="muted small mono"> · {request.accountUrl}</span> : null}
          </dd>
        </>
      ) : null}
      <dt>{t('field.environment')}</dt>
      <dd>
        <span className={`env-pill env-${request.environment}`}>{t(`environment.${request.environment}`)}</span>
      </dd>
      <dt>{t('field.askedBy')}</dt>
      <dd>{request.requestedBy}</dd>
      <dt>{t('field.askedAt')}</dt>
      <dd>{formatDateTime(request.requestedAt)}</dd>
      <dt>{t('field.approvals')}</dt>
      <dd>{t('approvalsCount', { given: request.approvalsGiven, required: request.approvalsRequired, role: t(`role.${request.approverRole}`) })}</dd>
      {request.subject === 'batch' ? (
        <>
          <dt>{t('field.batch')}</dt>
          <dd>
            <span className="mono">{request.batchId}</span>{' '}
            <button type="button" className="link" onClick={() => (navigate('batches'), void openBatch(request.batchId!))}>
              {t('openBatch')}
            </button>
          </dd>
        </>
      ) : (
        <>
          <dt>{t('field.externalId')}</dt>
          <dd className="mono">{request.externalId}</dd>
        </>
      )}
    </dl>
  );
}

/** How many rows a batch request's card shows; the batch's page has them all. */
const ROWS_ON_CARD = 10;

/** A row's flags as the checker reads them: invalid, a duplicate in the file, already a payout. */
function rowFlags(row: BatchRow): ('invalid' | 'duplicate' | 'sentEarlier')[] {
  const flags: ('invalid' | 'duplicate' | 'sentEarlier')[] = [];
  if (Object.keys(row.errors).length > 0) flags.push('invalid');
  if (row.duplicates.length > 0) flags.push('duplicate');
  if (row.alreadySent || row.paidBy) flags.push('sentEarlier');
  return flags;
}

/**
 * A batch request's rows on its card, read-only (issue 37 item 1): the first rows with their
 * flags, how many in all with a link to the batch's page, and an earlier send of the same file.
 */
function BatchRowsOnCard({ batchId, currency }: { batchId: string; currency: string }) {
  const { t } = useTranslation('approvals');
  const batchRows = useApprovals((s) => s.batchRows);
  const navigate = useUi((s) => s.navigate);
  const openBatch = useBatch((s) => s.open);
  const [read, setRead] = useState<{ ok: true; rows: BatchRow[]; total: number; importedBefore: EarlierImport[] } | { ok: false; error: ApiFailure } | null>(null);
  useEffect(() => {
    let live = true;
    void batchRows(batchId, ROWS_ON_CARD).then((result) => live && setRead(result.ok ? { ok: true, ...result.value } : { ok: false, error: result.error }));
    return () => {
      live = false;
    };
  }, [batchId, batchRows]);
  if (!read) return <Loading label={t('rowsOnCard.loading')} />;
  if (!read.ok) return <ErrorNotice failure={read.error} />;
  const sentBefore = read.importedBefore.filter((earlier) => earlier.state !== 'draft');
  return (
    <div className="approval-rows">
      {sentBefore.map((earlier) => (
        <p key={earlier.batchId} className="notice notice-warn small">
          {t('rowsOnCard.sentBefore', { batchId: earlier.batchId, fileName: earlier.fileName, at: formatDateTime(earlier.createdAt), state: earlier.state })}
        </p>
      ))}
      <div className="table-scroll">
        <table className="compact">
          <caption className="small">{t('rowsOnCard.caption', { batchId })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('rowsOnCard.row')}</th>
              <th scope="col">{t('rowsOnCard.recipient')}</th>
              <th scope="col">{t('rowsOnCard.phone')}</th>
              <th scope="col" className="num">{t('rowsOnCard.amount')}</th>
              <th scope="col">{t('rowsOnCard.externalId')}</th>
              <th scope="col">{t('rowsOnCard.flags')}</th>
            </tr>
          </thead>
          <tbody>
            {read.rows.map((row) => (
              <tr key={row.rowNumber}>
                <td>{row.rowNumber}</td>
                <td>{`${row.values.first_name} ${row.values.last_name}`.trim()}</td>
                <td className="mono">{row.request?.phone_number ?? row.values.phone_number}</td>
                <td className="num">{row.request ? formatMoney(row.request.amount, currency) : row.values.amount}</td>
                <td className="mono">{row.externalId}</td>
                <td>
                  {rowFlags(row).map((flag) => (
                    <span key={flag} className={`badge ${flag === 'invalid' ? 'badge-failed' : 'badge-processing'}`}>
                      {t(`rowsOnCard.${flag}`)}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="small">
        {t('rowsOnCard.shown', { shown: read.rows.length, total: read.total })}{' '}
        <button type="button" className="link" onClick={() => (navigate('batches'), void openBatch(batchId))}>
          {t('rowsOnCard.openAll')}
        </button>
      </p>
    </div>
  );
}

/**
 * The maker sends an approved payout or batch from its card: one action, what the approval bound,
 * nothing retyped. A batch opens its page once started; a file sent before is sent only once the
 * maker says so (the same refusal as the batch's own confirmation).
 */
function SendApproved({ request, what }: { request: ApprovalRequest; what: string }) {
  const { t } = useTranslation('approvals');
  const sendApproved = useApprovals((s) => s.sendApproved);
  const openTransaction = useUi((s) => s.openTransaction);
  const navigate = useUi((s) => s.navigate);
  const openBatch = useBatch((s) => s.open);
  const busy = useApprovals((s) => s.busy === request.id);
  const flight = useSingleFlight({ once: !(request.subject === 'batch') });
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const batch = request.subject === 'batch';
  const label = t(batch ? 'sendBatch' : 'send', { amount: formatMoney(request.amount, request.currency), count: request.rows });
  const duplicate = batch && failure?.code === 'CONFIRMATION_REQUIRED' && failure.fields?.['acceptDuplicateFile'] !== undefined;
  const send = (options: { acceptDuplicateFile?: true } = {}) =>
    void flight.run(async () => {
      const result = await sendApproved(request, options);
      if (result.ok) {
        if (!batch) return openTransaction(result.value.id);
        navigate('batches');
        return void openBatch(result.value.id);
      }
      if (result.error.journalId && (result.error.code === 'OUTCOME_UNKNOWN' || result.error.code === 'ALREADY_SENT')) return openTransaction(result.error.journalId);
      setFailure(result.error);
    });
  return (
    <div className="approval-send">
      <p className="small">{batch ? t('readyToSendBatch', { count: request.rows }) : t('readyToSend', { externalId: request.externalId ?? '' })}</p>
      <button type="button" className={request.environment === 'live' ? 'danger' : 'primary'} disabled={busy || flight.busy} aria-label={`${label} (${t('sendLabel', { id: request.id, what })})`} onClick={() => send()}>
        {busy ? <Spinner label={t('working')} /> : null} {label}
      </button>
      {failure ? <ErrorNotice failure={failure} /> : null}
      {duplicate ? (
        <button type="button" className="secondary" disabled={busy || flight.busy} onClick={() => send({ acceptDuplicateFile: true })}>
          {t('sendBatchAnyway')}
        </button>
      ) : null}
    </div>
  );
}

/** Withdraw asks first: a request withdrawn cannot be sent without asking again. */
function Withdraw({ request, what, remark }: { request: ApprovalRequest; what: string; remark: string }) {
  const { t } = useTranslation('approvals');
  const withdraw = useApprovals((s) => s.withdraw);
  const busy = useApprovals((s) => s.busy === request.id);
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="secondary" disabled={busy} aria-label={t('withdrawLabel', { id: request.id, what })} onClick={() => setAsking(true)}>
        {t('withdraw')}
      </button>
    );
  }
  return (
    <div className="approval-confirm" role="group" aria-label={t('withdrawAsk', { id: request.id })}>
      <p className="small">{t('withdrawAsk', { id: request.id })}</p>
      <button type="button" className="danger" disabled={busy} onClick={() => void withdraw(request, remark)}>
        {busy ? <Spinner label={t('working')} /> : null} {t('withdrawYes')}
      </button>
      <button type="button" className="secondary" disabled={busy} onClick={() => setAsking(false)}>
        {t('withdrawNo')}
      </button>
    </div>
  );
}

/** `shown`: one request opened from History that is in none of this login's lists (read-only). */
type Side = 'forMe' | 'mine' | 'decided' | 'everyone' | 'shown';

function RequestCard({ request, side }: { request: ApprovalRequest; side: Side }) {
  const { t } = useTranslation('approvals');
  const what = useWhat()(request);
  const remarkId = useId();
  const [remark, setRemark] = useState('');
  const busy = useApprovals((s) => s.busy === request.id);
  const approve = useApprovals((s) => s.approve);
  const reject = useApprovals((s) => s.reject);
  const openTransaction = useUi((s) => s.openTransaction);
  const step = approvalStep(request);
  // An approved request whose money has left cannot be withdrawn (the database refuses it): no button, a note instead.
  const open = side === 'mine' && (step === 'awaiting' || step === 'ready');
  const decides = side === 'forMe';
  return (
    <li className="card approval-card" aria-labelledby={`approval-${request.id}-title`} tabIndex={-1}>
      <h3 id={`approval-${request.id}-title`}>
        {what} <span className={`badge ${STATE_BADGE[request.state]}`}>{t(step === 'ready' ? 'state.ready' : step === 'sent' ? 'state.sent' : `state.${request.state}`)}</span>
      </h3>
      <ApprovalSteps request={request} />
      <Facts request={request} />
      {request.subject === 'batch' && request.batchId && (step === 'awaiting' || step === 'ready') ? <BatchRowsOnCard batchId={request.batchId} currency={request.currency} /> : null}
      {request.remark && request.state === 'awaiting' ? <p className="small">{t('remarkShown', { remark: request.remark })}</p> : null}
      <ApprovalVotes request={request} />
      {step === 'sent' ? (
        <p className="small approval-sent">
          {t(`sent.${request.subject}`)}{' '}
          {request.subject === 'payout' && request.spentByEntry ? (
            <button type="button" className="link" onClick={() => openTransaction(request.spentByEntry!)}>
              {t('followTimeline')}
            </button>
          ) : null}
        </p>
      ) : null}
      {side === 'mine' && step === 'ready' && ((request.subject === 'payout' && request.request) || (request.subject === 'batch' && request.batchId)) ? <SendApproved request={request} what={what} /> : null}
      {decides || open ? (
        <div className="approval-actions">
          <label htmlFor={remarkId}>{decides ? t('remarkLabel') : t('field.remark')}</label>
          <textarea id={remarkId} rows={2} maxLength={500} value={remark} onChange={(e) => setRemark(e.target.value)} aria-label={t('remarkLabelFor', { id: request.id })} />
          <div className="actions">
            {decides ? (
              <>
                <button type="button" className="primary" disabled={busy} aria-label={t('approveLabel', { id: request.id, what })} onClick={() => void approve(request, remark.trim())}>
                  {busy ? <Spinner label={t('working')} /> : null} {t('approve')}
                </button>
                <button type="button" className="danger" disabled={busy || remark.trim() === ''} aria-label={t('rejectLabel', { id: request.id, what })} onClick={() => void reject(request, remark.trim())}>
                  {t('reject')}
                </button>
              </>
            ) : (
              <Withdraw request={request} what={what} remark={remark.trim()} />
            )}
          </div>
        </div>
      ) : null}
    </li>
  );
}

/**
 * A decision that did not happen, said with the request as main read it again: who decided it
 * first (a late vote), or its state now (a connection lost before the vote was recorded).
 */
function DecisionRefused({ failure }: { failure: ApiFailure }) {
  const { t } = useTranslation('approvals');
  const decision = failure.decision;
  if (decision && failure.code === 'APPROVAL_NOT_WAITING' && decision.state !== 'awaiting') {
    const title = t(`late.${decision.state}`, { id: decision.id, by: decision.decidedBy ?? '' });
    const next = decision.state === 'approved' ? t('late.nextApproved', { maker: decision.requestedBy }) : t('late.next');
    return <ErrorNotice failure={failure} title={title} next={next} />;
  }
  if (decision && failure.code === 'APPROVAL_NOT_RECORDED') {
    return <ErrorNotice failure={failure} next={t('notRecordedNext', { id: decision.id, state: t(`state.${decision.state}`) })} />;
  }
  return <ErrorNotice failure={failure} />;
}

function LastDecision() {
  const { t } = useTranslation('approvals');
  const last = useApprovals((s) => s.last);
  if (!last) return null;
  if (!last.ok) return <DecisionRefused failure={last.error} />;
  const { request } = last;
  const key = request.state === 'approved' || request.state === 'awaiting' || request.state === 'rejected' || request.state === 'withdrawn' ? request.state : null;
  return key ? (
    <p className="notice notice-info" role="status">
      {t(`done.${key}`, { id: request.id })}
    </p>
  ) : null;
}

/**
 * The browser host asks for the desktop notifications' permission once, from this click (a browser
 * refuses a request made without a gesture); Electron's window has it already, so nothing shows.
 */
function NotifyPermission() {
  const { t } = useTranslation('approvals');
  const [askable, setAskable] = useState(notificationsAskable);
  const [denied, setDenied] = useState(false);
  if (denied) return <p className="muted small">{t('notify.denied')}</p>;
  if (!askable) return null;
  return (
    <p className="muted small">
      <button type="button" className="secondary small" onClick={() => void askNotifications().then((granted) => (setAskable(false), setDenied(!granted)))}>
        {t('notify.turnOn')}
      </button>{' '}
      {t('notify.turnOnHint')}
    </p>
  );
}

function RequestList({ side, requests }: { side: Side; requests: ApprovalRequest[] }) {
  const { t } = useTranslation('approvals');
  const words = side === 'decided' ? 'decidedByMe' : side;
  return (
    <section className="approval-list" aria-labelledby={`approvals-${side}-title`}>
      <h2 id={`approvals-${side}-title`}>
        {t(`${words}.title`)} <span className="badge">{requests.length}</span>
      </h2>
      {requests.length === 0 ? (
        <p className="muted">{t(`${words}.empty`)}</p>
      ) : (
        <ul className="approval-cards">
          {requests.map((request) => (
            <RequestCard key={request.id} request={request} side={side} />
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * History's link to a request (`#/approvals?request=N`): its card in this login's lists is brought
 * into view and focused; a request in none of them (a colleague's, read by support) is shown alone first.
 */
function RequestOpened({ id }: { id: number }) {
  const inLists = useApprovals((s) => [s.forMe, s.mine, s.decided, s.everyone].some((list) => list.some((r) => r.id === id)));
  const get = useApprovals((s) => s.get);
  const [alone, setAlone] = useState<ApprovalRequest | null>(null);
  useEffect(() => {
    if (inLists) {
      const card = document.getElementById(`approval-${id}-title`)?.closest('li');
      card?.scrollIntoView({ block: 'start' });
      card?.focus({ preventScroll: true });
      return undefined;
    }
    let current = true;
    void get(id).then((result) => {
      if (current && result.ok) setAlone(result.value);
    });
    return () => {
      current = false;
    };
  }, [id, inLists, get]);
  return !inLists && alone ? <RequestList side="shown" requests={[alone]} /> : null;
}

export function ApprovalsScreen() {
  const { t } = useTranslation('approvals');
  const state = useApprovals((s) => s);
  const asked = Number(useUi((s) => s.params.request));
  const opened = Number.isSafeInteger(asked) && asked > 0 ? asked : null;
  useEffect(() => {
    void state.load();
    // Loaded once when the screen opens; Refresh and each decision read it again.
  }, []);
  return (
    <Screen id="approvals" title={t('title')} intro={t('intro')} width="wide">
      {state.status === 'loading' || state.status === 'idle' ? <Loading label={t('loading')} /> : null}
      {state.status === 'error' ? (
        <>
          {/* A decision whose outcome is not known yet (the workspace lost on its way) is said first:
              reading the lists again failed for the same reason, and that alone would hide it. */}
          <LastDecision />
          {state.error ? <ErrorNotice failure={state.error} /> : null}
          <p>
            <button type="button" className="secondary small" onClick={() => void state.load()}>
              {t('refresh')}
            </button>
          </p>
        </>
      ) : null}
      {state.status === 'ready' && !state.available ? <p className="notice notice-info">{t('unavailable')}</p> : null}
      {state.status === 'ready' && state.available ? (
        <>
          <p className="muted">
            {t('signedInAs', { login: state.login ?? '', roles: state.roles.join(', ') })}{' '}
            <button type="button" className="secondary small" onClick={() => void state.load()}>
              {t('refresh')}
            </button>
          </p>
          <NotifyPermission />
          <LastDecision />
          {opened ? <RequestOpened id={opened} /> : null}
          <RequestList side="forMe" requests={state.forMe} />
          <RequestList side="mine" requests={state.mine} />
          <RequestList side="decided" requests={state.decided} />
          {state.roles.includes('admin') ? <RequestList side="everyone" requests={state.everyone} /> : null}
        </>
      ) : null}
      {state.status === 'ready' ? <ApprovalPolicy /> : null}
    </Screen>
  );
}
