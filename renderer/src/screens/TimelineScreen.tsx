/**
 * One transaction: status badge, facts, Verify, the outcome-unknown flow (look up, then resend
 * only if it never arrived) and the journal's timeline, newest first.
 */
import { ApprovalTrail } from './ApprovalTrail';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, JournalTransaction } from '../../../shared/api';
// Zod-free modules, not the indexes: see HistoryScreen.tsx (issue 28).
import { isFinalStatus } from '../../../shared/contract/codes';
import { Empty, ErrorNotice, Loading, Spinner, StatusBadge, shownState, storedProfileName } from '../components/common';
import { useSingleFlight } from '../components/useSingleFlight';
import { formatMoney } from '../format/money';
import { t } from '../i18n';
import { describeFailedCode } from '../messages/errors';
import { useProfiles, useTransactions, useUi } from '../stores';
import { senderHolds } from '../stores/profiles';
import { AdoptedDiffersNotice, PaidLaterNotice } from './adoptedParts';
import { statusWord, Timeline, TransactionFacts } from './timelineParts';
import { FollowUpRefusedNote, SendRefusedNote, useMayFollowUp, useMaySend } from '../components/WorkspaceBar';

/** Why it failed, in words: a payout's reasons speak of its recipient, a payment's of its payer. */
function failureReason(tx: JournalTransaction): string | null {
  return describeFailedCode(tx.failedCode, tx.kind);
}

/** A sender-held profile's entry: the team sender follows it up, this desktop offers no read of its own. */
function FollowedBySender() {
  const { t: tr } = useTranslation('transaction');
  return <p className="notice notice-info followed-by-sender" role="note">{tr('followedBySender')}</p>;
}

function OutcomeUnknown({ journalId, bySender }: { journalId: string; bySender: boolean }) {
  const { t: tr } = useTranslation('transaction');
  const resolve = useTransactions((s) => s.resolve[journalId]);
  const resolveUnknown = useTransactions((s) => s.resolveUnknown);
  const resend = useTransactions((s) => s.resend);
  const openTransaction = useUi((s) => s.openTransaction);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  // A resend is a new request with money behind it: once from here, unless the console refused it.
  const resending = useSingleFlight({ once: true });
  const lookingUp = useSingleFlight();
  const maySend = useMaySend();
  function sendAgain() {
    void resending.run(async () => {
      const result = await resend(journalId);
      if (result.ok) openTransaction(result.value.id);
      else {
        resending.rearm();
        setFailure(result.error);
      }
    });
  }
  const message = resolve?.exists === true ? tr('unknown.exists') : resolve?.exists === false ? tr('unknown.missing') : null;
  return (
    <div className="notice notice-warn" role="region" aria-label={tr('unknown.region')}>
      <strong>{tr('unknown.title')}</strong>
      {bySender ? (
        // Only the sender looks it up (migration 51): a Look it up here would always be refused.
        <p className="followed-by-sender">{tr('followedBySender')}</p>
      ) : (
        <>
          <p>{tr('unknown.body')}</p>
          <div className="actions left">
            <button type="button" className="primary" onClick={() => void lookingUp.run(() => resolveUnknown(journalId))} disabled={resolve?.busy}>
              {resolve?.busy ? <Spinner label={tr('unknown.lookingUp')} /> : null}
              {tr('unknown.lookUp')}
            </button>
            {resolve?.exists === false ? (
              <button type="button" className="danger" onClick={sendAgain} disabled={resending.busy || resending.spent || !maySend}>
                {resending.busy ? tr('unknown.sending') : tr('unknown.sendAgain')}
              </button>
            ) : null}
          </div>
          {resolve?.exists === false ? <SendRefusedNote /> : null}
          {message ? <p role="status">{message}</p> : null}
          {resolve?.error ? <ErrorNotice failure={resolve.error} /> : null}
          {failure ? <ErrorNotice failure={failure} /> : null}
        </>
      )}
    </div>
  );
}

export function TimelineScreen() {
  const { t: tr } = useTranslation('transaction');
  const journalId = useUi((s) => s.journalId);
  const navigate = useUi((s) => s.navigate);
  const foundIn = useUi((s) => s.params.foundIn);
  const entry = useTransactions((s) => (journalId ? s.entries[journalId] : undefined));
  const progress = useTransactions((s) => (journalId ? s.progress[journalId] : undefined));
  const verify = useTransactions((s) => (journalId ? s.verify[journalId] : undefined));
  const load = useTransactions((s) => s.load);
  const verifyNow = useTransactions((s) => s.verifyNow);
  const verifying = useSingleFlight();
  // Verify records what the service says: finance and support do; an admin-only login reads (docs/decisions/start-up-by-role.md).
  const mayVerify = useMayFollowUp();
  const forgetOutcomes = useTransactions((s) => s.forgetOutcomes);
  // Its profile's keys are with the team sender: the sender sent it (docs/team-sender.md), this desktop follows it.
  const profileId = entry?.detail?.transaction.profileId;
  const bySender = useProfiles((s) => senderHolds(s, profileId));

  useEffect(() => {
    if (!journalId) return undefined;
    void load(journalId);
    // Messages belong to the action that produced them: leaving the transaction ends them.
    return () => forgetOutcomes(journalId);
  }, [journalId, load, forgetOutcomes]);

  if (!journalId) {
    return (
      <section className="screen" aria-labelledby="timeline-title">
        <h1 id="timeline-title">{tr('title')}</h1>
        <Empty>
          {tr('noneOpen')} <button type="button" className="link" onClick={() => navigate('lookup')}>{tr('lookOneUp')}</button>
        </Empty>
      </section>
    );
  }
  const detail = entry?.detail;
  if (!detail) {
    return (
      <section className="screen" aria-labelledby="timeline-title">
        <h1 id="timeline-title">{tr('title')}</h1>
        {entry?.error ? <ErrorNotice failure={entry.error} /> : <Loading label={tr('loading')} />}
      </section>
    );
  }
  const tx = detail.transaction;
  const reason = failureReason(tx);
  const final = tx.status !== null && isFinalStatus(tx.status);
  const watching = progress && !progress.done && !final;
  const known = tx.state === 'known' && tx.transactionId !== null;
  // Only the team sender reads the service for a sender-held profile (main refuses Verify): no button that always refuses.
  const canVerify = known && !bySender;
  return (
    <section className="screen wide" aria-labelledby="timeline-title">
      <header className="screen-head tx-head">
        <div>
          <p className="eyebrow">
            {tr(`kind.${tx.kind}`)} · {storedProfileName(tx.profileId, tx.profileName)} · <span className={`env-pill env-${tx.environment}`}>{t(`common:environment.${tx.environment}`)}</span>
          </p>
          <h1 id="timeline-title">{formatMoney(tx.amount, tx.currency)}</h1>
          <p className="muted">
            {tx.customer.first_name} {tx.customer.last_name} · <span className="mono">{tx.phoneNumber}</span>
          </p>
          {bySender && tx.kind === 'payout' ? <p className="muted sent-by-sender">{tr('bySender')}</p> : null}
        </div>
        <div className="tx-status">
          <StatusBadge status={tx.status} state={shownState(tx)} />
          {canVerify ? (
            // A final status rarely changes: Verify stays available, but is no longer the main action.
            <button type="button" className={final ? 'secondary' : 'primary'} onClick={() => void verifying.run(() => verifyNow(tx.id))} disabled={verify?.busy || !mayVerify}>
              {verify?.busy ? <Spinner label={tr('verify.spinner')} /> : null}
              {verify?.busy ? tr('verify.busy') : tr('verify.button')}
            </button>
          ) : null}
        </div>
      </header>
      {foundIn === 'team_journal' || foundIn === 'service' ? (
        <p className="notice notice-info" role="status">
          {tr(foundIn === 'team_journal' && bySender ? 'foundIn.team_journal_sender' : `foundIn.${foundIn}`)}
        </p>
      ) : null}
      {canVerify ? <FollowUpRefusedNote what="verify" /> : null}
      {known && bySender ? <FollowedBySender /> : null}
      {tx.kind === 'payout' && tx.externalId ? <ApprovalTrail subject={{ environment: tx.environment, externalId: tx.externalId }} /> : null}
      {watching ? (
        <div className="notice notice-info" role="status" aria-live="polite">
          <Spinner label={tr('watching.spinner')} /> {tr('watching.text', { attempt: progress.attempt, status: progress.status ? statusWord(progress.status) : tr('watching.nothingYet') })}
        </div>
      ) : null}
      {verify?.message ? (
        <div className="notice notice-info" role="status" aria-label={tr('verify.outcomeLabel')}>
          {tr('verify.outcome', { message: verify.message.trim(), status: tx.status ? statusWord(tx.status) : tr('unknownStatus') })}
        </div>
      ) : null}
      {verify?.error ? <ErrorNotice failure={verify.error} title={tr('verify.failedTitle')} /> : null}
      {reason ? (
        <div className="notice notice-error" role="note" aria-label={tr('failedTitle')}>
          <strong>{tr('failedLabel')}</strong> <span>{reason}</span> <span className="code">({tx.failedCode})</span>
        </div>
      ) : null}
      {tx.status === 'cancelled' ? (
        <div className="notice notice-info" role="note">
          {tr('cancelledNote')}
        </div>
      ) : null}
      <AdoptedDiffersNotice tx={tx} />
      <PaidLaterNotice tx={tx} />
      {tx.state === 'rejected' && tx.lastError ? <ErrorNotice failure={{ code: tx.lastError.code, message: tx.lastError.message }} title={tr('rejectedTitle')} /> : null}
      {tx.state === 'outcome_unknown' ? <OutcomeUnknown journalId={tx.id} bySender={bySender} /> : null}
      <div className="two-col">
        <div className="card">
          <h2>{tr('details')}</h2>
          <TransactionFacts tx={tx} />
        </div>
        <div className="card">
          <h2>{tr('timeline')}</h2>
          <p className="muted small">{tr('timeZone', { zone: Intl.DateTimeFormat().resolvedOptions().timeZone })}</p>
          <Timeline events={detail.timeline} kind={tx.kind} />
        </div>
      </div>
    </section>
  );
}
