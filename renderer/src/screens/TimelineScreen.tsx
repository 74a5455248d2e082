/**
 * One transaction: status badge, facts, Verify, the outcome-unknown flow (look up, then resend
 * only if it never arrived) and the journal's timeline, newest first.
 */
import { useEffect, useRef, useState } from 'react';
import type { ApiFailure } from '../../../shared/api';
import { isFinalStatus } from '../../../shared/contract';
import { Empty, ErrorNotice, Loading, Spinner, StatusBadge } from '../components/common';
import { formatMoney } from '../format/money';
import { describeFailedCode } from '../messages/errors';
import { useTransactions, useUi } from '../stores';
import { Timeline, TransactionFacts } from './timelineParts';

function OutcomeUnknown({ journalId }: { journalId: string }) {
  const resolve = useTransactions((s) => s.resolve[journalId]);
  const resolveUnknown = useTransactions((s) => s.resolveUnknown);
  const resend = useTransactions((s) => s.resend);
  const openTransaction = useUi((s) => s.openTransaction);
  const [resending, setResending] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const fired = useRef(false);
  async function sendAgain() {
    if (fired.current) return;
    fired.current = true;
    setResending(true);
    const result = await resend(journalId);
    setResending(false);
    if (result.ok) openTransaction(result.value.id);
    else {
      fired.current = false;
      setFailure(result.error);
    }
  }
  return (
    <div className="notice notice-warn" role="region" aria-label="Outcome unknown">
      <strong>The outcome of this request is unknown.</strong>
      <p>It may have reached the service before the connection failed. Do not send it again before looking it up: the console asks the service for its external id.</p>
      <div className="actions left">
        <button type="button" className="primary" onClick={() => void resolveUnknown(journalId)} disabled={resolve?.busy}>
          {resolve?.busy ? <Spinner label="Looking it up" /> : null}
          Look it up
        </button>
        {resolve?.exists === false ? (
          <button type="button" className="danger" onClick={() => void sendAgain()} disabled={resending}>
            {resending ? 'Sending…' : 'Send again (same external id)'}
          </button>
        ) : null}
      </div>
      {resolve?.message ? <p role="status">{resolve.message}</p> : null}
      {resolve?.error ? <ErrorNotice failure={resolve.error} /> : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
    </div>
  );
}

export function TimelineScreen() {
  const journalId = useUi((s) => s.journalId);
  const navigate = useUi((s) => s.navigate);
  const entry = useTransactions((s) => (journalId ? s.entries[journalId] : undefined));
  const progress = useTransactions((s) => (journalId ? s.progress[journalId] : undefined));
  const verify = useTransactions((s) => (journalId ? s.verify[journalId] : undefined));
  const load = useTransactions((s) => s.load);
  const verifyNow = useTransactions((s) => s.verifyNow);

  useEffect(() => {
    if (journalId) void load(journalId);
  }, [journalId, load]);

  if (!journalId) {
    return (
      <section className="screen" aria-labelledby="timeline-title">
        <h1 id="timeline-title">Transaction</h1>
        <Empty>
          No transaction open. <button type="button" className="link" onClick={() => navigate('lookup')}>Look one up</button>
        </Empty>
      </section>
    );
  }
  const detail = entry?.detail;
  if (!detail) {
    return (
      <section className="screen" aria-labelledby="timeline-title">
        <h1 id="timeline-title">Transaction</h1>
        {entry?.error ? <ErrorNotice failure={entry.error} /> : <Loading label="Loading transaction" />}
      </section>
    );
  }
  const tx = detail.transaction;
  const failedSentence = describeFailedCode(tx.failedCode);
  const watching = progress && !progress.done && !(tx.status && isFinalStatus(tx.status));
  const canVerify = tx.state === 'known' && tx.transactionId !== null;
  return (
    <section className="screen wide" aria-labelledby="timeline-title">
      <header className="screen-head tx-head">
        <div>
          <p className="eyebrow">
            {tx.kind === 'payment' ? 'Payment' : 'Payout'} · {tx.profileName} · <span className={`env-pill env-${tx.environment}`}>{tx.environment}</span>
          </p>
          <h1 id="timeline-title">{formatMoney(tx.amount, tx.currency)}</h1>
          <p className="muted">
            {tx.customer.first_name} {tx.customer.last_name} · <span className="mono">{tx.phoneNumber}</span>
          </p>
        </div>
        <div className="tx-status">
          <StatusBadge status={tx.status} state={tx.state} />
          {canVerify ? (
            <button type="button" className="primary" onClick={() => void verifyNow(tx.id)} disabled={verify?.busy}>
              {verify?.busy ? <Spinner label="Verifying with the provider" /> : null}
              {verify?.busy ? 'Verifying…' : 'Verify'}
            </button>
          ) : null}
        </div>
      </header>
      {watching ? (
        <div className="notice notice-info" role="status" aria-live="polite">
          <Spinner label="Watching for updates" /> Watching for the final status… (check {progress.attempt}, last seen {progress.status ?? 'nothing yet'})
        </div>
      ) : null}
      {verify?.message ? (
        <div className="notice notice-info" role="status" aria-label="Verify outcome">
          {verify.message} Status now: <strong>{tx.status ?? tx.state}</strong>.
        </div>
      ) : null}
      {verify?.error ? <ErrorNotice failure={verify.error} title="Verify did not work." /> : null}
      {failedSentence ? (
        <div className="notice notice-error" role="note">
          <strong>Failed:</strong> {failedSentence} <span className="code">({tx.failedCode})</span>
        </div>
      ) : null}
      {tx.state === 'rejected' && tx.lastError ? <ErrorNotice failure={{ code: tx.lastError.code, message: tx.lastError.message }} title="The service refused this request; nothing was created." /> : null}
      {tx.state === 'outcome_unknown' ? <OutcomeUnknown journalId={tx.id} /> : null}
      <div className="two-col">
        <div className="card">
          <h2>Details</h2>
          <TransactionFacts tx={tx} />
        </div>
        <div className="card">
          <h2>Timeline</h2>
          <p className="muted small">Times in your time zone ({Intl.DateTimeFormat().resolvedOptions().timeZone}).</p>
          <Timeline events={detail.timeline} />
        </div>
      </div>
    </section>
  );
}
