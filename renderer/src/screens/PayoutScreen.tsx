/**
 * New payout: the form, the wallet balance, then a confirmation step that restates recipient,
 * amount, fee, environment and profile (typed amount on live profiles) before anything is sent.
 */
import { AlreadySentAction } from '../components/AlreadySentAction';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PayoutQuote } from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { ErrorNotice, Loading, profileName } from '../components/common';
import { formatMoney } from '../format/money';
import { activeProfile, BALANCE_FRESH_MS, liveRefused } from '../stores/profiles';
import { useProfiles, useTransactions, useUi } from '../stores';
import { PayoutConfirmDialog } from './PayoutConfirm';
import { AskApproval } from './AskApproval';
import { TransactionFields, useTransactionSubmit } from './transactionForm';
import { Screen } from '../components/Screen';
import { SendRefusedNote, useMaySend } from '../components/WorkspaceBar';

export function PayoutScreen() {
  const maySend = useMaySend();
  const { t } = useTranslation('payout');
  const refused = useProfiles((s) => liveRefused(s));
  const methods = useProfiles((s) => s.methods);
  const balance = useProfiles((s) => s.balance);
  const balanceError = useProfiles((s) => s.balanceError);
  const loadBalance = useProfiles((s) => s.loadBalance);
  const currency = balance?.currency ?? 'XAF';
  const profile = useProfiles((s) => activeProfile(s));
  const preparePayout = useTransactions((s) => s.preparePayout);
  const openTransaction = useUi((s) => s.openTransaction);
  const { form, failure, busy: preparing, submitWith, showFailure } = useTransactionSubmit(methods, currency);
  const [review, setReview] = useState<{ request: TransactionRequest; quote: PayoutQuote | null } | null>(null);
  // The payout a team workspace's policy held back: "Ask for approval" asks for exactly it.
  const [held, setHeld] = useState<TransactionRequest | null>(null);
  // Payments settle into the same wallet: read the balance fresh whenever the screen opens.
  useEffect(() => {
    void loadBalance({ maxAgeMs: BALANCE_FRESH_MS });
  }, [loadBalance]);

  const submit = submitWith(async (request) => {
    if (profile?.environment === 'live') {
      // Live: the dialog asks for the typed amount first; main issues the quote only with it.
      setReview({ request, quote: null });
      return;
    }
    const result = await preparePayout(request);
    if (result.ok) setReview({ request, quote: result.value });
    else showFailure(result.error);
  });

  return (
    <Screen id="payout" title={t('title')} intro={t('intro')}>
      <div className="card balance-card" aria-live="polite">
        <span className="muted">{profile ? t('balanceOf', { name: profileName(profile) }) : t('balance')}</span>
        {balance === null && !balanceError && !refused ? <Loading label={t('loadingBalance')} /> : null}
        {balance?.available ? <strong className="balance" data-testid="wallet-balance">{formatMoney(balance.balance, currency)}</strong> : null}
        {balance && !balance.available ? <span className="muted">{t('noBalance')}</span> : null}
        {refused ? <span className="muted">{t('balanceRefused')}</span> : null}
        {balanceError && !refused ? (
          <span className="muted" title={balanceError.message}>
            {t('balanceUnavailable')}
          </span>
        ) : null}
        <button type="button" className="secondary small" onClick={() => void loadBalance()} disabled={refused}>
          {t('refresh')}
        </button>
      </div>
      <form className="card form" onSubmit={submit} noValidate aria-label={t('title')}>
        {/* Needing approval is a step of the payout, said by the notice below, not an error. */}
        {failure && !(failure.code === 'APPROVAL_REQUIRED' && failure.approval && held) ? <ErrorNotice failure={failure} /> : null}
        <AlreadySentAction failure={failure} label={t('openExisting')} />
        {failure?.code === 'APPROVAL_REQUIRED' && failure.approval && held ? <AskApproval need={failure.approval} request={held} /> : null}
        <TransactionFields form={form} methods={methods} currency={currency} idPrefix="payout" kind="payout" />
        <div className="actions">
          <button type="submit" className="primary" disabled={preparing || refused || !maySend}>
            {preparing ? t('preparing') : t('review')}
          </button>
        </div>
        <SendRefusedNote />
      </form>
      {review ? (
        <PayoutConfirmDialog
          request={review.request}
          profile={{ name: profile ? profileName(profile) : '', environment: profile?.environment ?? 'sandbox' }}
          initialQuote={review.quote}
          onClose={() => setReview(null)}
          onSent={(journalId) => {
            setReview(null);
            form.reset();
            void loadBalance();
            openTransaction(journalId);
          }}
          onFailed={(error) => {
            setHeld(review.request);
            setReview(null);
            showFailure(error);
            void loadBalance();
          }}
        />
      ) : null}
    </Screen>
  );
}
