/**
 * Who asked and who approved a payout or a batch (issue 25 item 4), on its timeline or its page.
 * Nothing on a single desktop (no approvals there) or when nothing was ever asked for it.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApprovalRequest } from '../../../shared/api';
import { formatDateTime } from '../format/time';
import { useApprovals } from '../stores';
import { approvalStep, ApprovalSteps } from './ApprovalSteps';

/** Who voted, and how the request ended when it did not end by a vote. */
export function ApprovalVotes({ request }: { request: ApprovalRequest }) {
  const { t } = useTranslation('approvals');
  if (request.votes.length === 0 && request.state !== 'withdrawn') return null;
  return (
    <ul className="approval-votes">
      {request.votes.map((vote) => (
        <li key={vote.voter}>
          {t(`vote.${vote.vote}`, { who: vote.voter, at: formatDateTime(vote.at) })}
          {vote.remark ? <> · {t('voteRemark', { remark: vote.remark })}</> : null}
        </li>
      ))}
      {request.state === 'withdrawn' && request.decidedBy ? (
        <li>
          {t('decided.withdrawn', { who: request.decidedBy, at: formatDateTime(request.decidedAt) })}
          {request.remark ? <> · {t('voteRemark', { remark: request.remark })}</> : null}
        </li>
      ) : null}
    </ul>
  );
}

export function ApprovalTrail({ subject }: { subject: { batchId: string } | { environment: 'sandbox' | 'live'; externalId: string } }) {
  const { t } = useTranslation('approvals');
  const about = useApprovals((s) => s.about);
  // A change event naming an approval (approved or rejected on another desktop): read again.
  const heard = useApprovals((s) => s.heard);
  const [requests, setRequests] = useState<ApprovalRequest[]>([]);
  const key = JSON.stringify(subject);
  useEffect(() => {
    let live = true;
    void about(JSON.parse(key) as typeof subject).then((result) => live && setRequests(result.ok ? result.value.requests : []));
    return () => {
      live = false;
    };
    // `key` stands for the subject's fields.
  }, [about, key, heard]);
  if (requests.length === 0) return null;
  return (
    <section className="card approval-trail" aria-labelledby="approval-trail-title">
      <h2 id="approval-trail-title">{t('history')}</h2>
      <ul className="approval-cards">
        {requests.map((request) => (
          <li key={request.id}>
            <p>
              <strong>{t(approvalStep(request) === 'ready' ? 'state.ready' : approvalStep(request) === 'sent' ? 'state.sent' : `state.${request.state}`)}</strong> · {t('field.askedBy')} {request.requestedBy}, {formatDateTime(request.requestedAt)} ·{' '}
              {t('approvalsCount', { given: request.approvalsGiven, required: request.approvalsRequired, role: t(`role.${request.approverRole}`) })}
            </p>
            <ApprovalSteps request={request} />
            <ApprovalVotes request={request} />
          </li>
        ))}
      </ul>
    </section>
  );
}
