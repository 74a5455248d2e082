/**
 * Where a payout (or a batch) stands on its way out (issue 37 item 1): needs approval → awaiting
 * approval → approved, ready to send → sent. Shown on the Approvals cards and the payout's timeline.
 */
import { useTranslation } from 'react-i18next';
import type { ApprovalRequest } from '../../../shared/api';

/** The request's step; null when it left the way (rejected, withdrawn, void). */
export function approvalStep(request: ApprovalRequest): 'awaiting' | 'ready' | 'sent' | null {
  if (request.state === 'awaiting') return 'awaiting';
  if (request.state !== 'approved') return null;
  return request.sent || request.spentByEntry !== null ? 'sent' : 'ready';
}

const STEPS = ['needed', 'awaiting', 'ready', 'sent'] as const;

export function ApprovalSteps({ request }: { request: ApprovalRequest }) {
  const { t } = useTranslation('approvals');
  const step = approvalStep(request);
  if (step === null) return null;
  const at = STEPS.indexOf(step);
  return (
    <ol className="approval-steps" aria-label={t('steps.label')}>
      {STEPS.map((name, i) => (
        <li key={name} className={i < at ? 'done' : i === at ? 'current' : 'next'} aria-current={i === at ? 'step' : undefined}>
          {t(`steps.${name}`)}
        </li>
      ))}
    </ol>
  );
}

