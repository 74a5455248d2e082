/**
 * Shown where a send was refused with APPROVAL_REQUIRED (the payout form, a confirmed batch):
 * what the team's policy needs, the request already open if any, and "Ask for approval". The
 * approval binds exactly what is sent (a payout's whole request with its profile and external id,
 * a batch's rows), and the maker sends it from the request's card once someone else approved it.
 * Also the payout confirmation's "needs approval" step: a state of the payout, not an error.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, ApprovalNeed } from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { ErrorNotice } from '../components/common';
import { formatMoney } from '../format/money';
import { useApprovals, useUi } from '../stores';
import { useSingleFlight } from '../components/useSingleFlight';

export function AskApproval({ need, request }: { need: ApprovalNeed; request?: TransactionRequest | undefined }) {
  const { t } = useTranslation('approvals');
  const askPayout = useApprovals((s) => s.askPayout);
  const askBatch = useApprovals((s) => s.askBatch);
  const navigate = useUi((s) => s.navigate);
  const flight = useSingleFlight();
  const [answer, setAnswer] = useState<{ ok: true; text: string } | { ok: false; error: ApiFailure } | null>(null);
  const amount = formatMoney(need.amount, need.currency ?? 'XAF');
  const words = { amount, rowsText: t('rowCount', { count: need.rows }), count: need.approvals, role: t(`role.${need.approverRole}`) };
  const open = need.request && need.request.state === 'awaiting' ? need.request : null;
  const ask = () =>
    void flight.run(async () => {
      if (need.subject === 'batch' && need.batchId) {
        const result = await askBatch(need.batchId);
        setAnswer(result.ok ? { ok: true, text: result.value.request ? t('askedBatch', { id: result.value.request.id }) : t('notCovered') } : { ok: false, error: result.error });
      } else if (request) {
        const result = await askPayout(request);
        setAnswer(
          result.ok
            ? { ok: true, text: result.value.request ? t('asked', { id: result.value.request.id, externalId: result.value.externalId }) : t('notCovered') }
            : { ok: false, error: result.error },
        );
      }
    });
  return (
    <div className="notice notice-warn ask-approval" role="region" aria-label={t('ask')}>
      <p>{need.subject === 'batch' ? t('needed.batch', words) : t('needed.payout', words)}</p>
      {open ? <p>{t('openRequest.awaiting', { id: open.id })}</p> : null}
      {answer?.ok ? (
        <p role="status">
          {answer.text}{' '}
          <button type="button" className="link" onClick={() => navigate('approvals')}>
            {t('openApprovals')}
          </button>
        </p>
      ) : open ? null : (
        <button type="button" className="primary small" disabled={flight.busy} aria-label={t('askLabel', { subject: t(`subject.${need.subject}`).toLowerCase() })} onClick={ask}>
          {t('ask')}
        </button>
      )}
      {answer && !answer.ok ? <ErrorNotice failure={answer.error} /> : null}
    </div>
  );
}
