/** The payout confirmation step: restates everything, and fires the payout at most once. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure, PayoutQuote } from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { Dialog } from '../components/Dialog';
import { useSingleFlight } from '../components/useSingleFlight';
import { ErrorNotice, Field, Spinner, describedBy } from '../components/common';
import { currencyLabel, formatMoney, parseAmount } from '../format/money';
import { t as tg } from '../i18n';
import { describeFailure } from '../messages/errors';
import { useTransactions } from '../stores';
import { AskApproval } from './AskApproval';

export function PayoutConfirmDialog({
  request,
  profile,
  initialQuote,
  onClose,
  onSent,
  onFailed,
}: {
  request: TransactionRequest;
  profile: { name: string; environment: 'sandbox' | 'live' };
  /** Sandbox: the quote is there at once. Live: null until the typed amount has been checked. */
  initialQuote: PayoutQuote | null;
  onClose: () => void;
  onSent: (journalId: string) => void;
  onFailed: (error: ApiFailure) => void;
}) {
  const { t } = useTranslation('payout');
  const preparePayout = useTransactions((s) => s.preparePayout);
  const initiatePayout = useTransactions((s) => s.initiatePayout);
  const [quote, setQuote] = useState<PayoutQuote | null>(initialQuote);
  const live = (quote?.environment ?? profile.environment) === 'live';
  const currency = quote?.currency ?? 'XAF';
  const [typed, setTyped] = useState('');
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const fire = useSingleFlight({ once: true });
  const typedAmount = parseAmount(typed, currency);
  const typedMatches = 'amount' in typedAmount && typedAmount.amount === request.amount;
  // A team workspace's policy covers it: the confirmation says so and offers to ask (no Send, no refusal after it).
  const need = quote?.approval ?? null;
  const shortOfFunds = quote !== null && quote.balance !== null && quote.total !== null && quote.total > quote.balance;

  /** Live, first step: the typed amount goes to main, which answers with the quote and token. */
  async function checkTyped(event: React.FormEvent) {
    event.preventDefault();
    if (sending || !typedMatches) return;
    setSending(true);
    setFailure(null);
    const result = await preparePayout(request, request.amount);
    setSending(false);
    if (result.ok) setQuote(result.value);
    else setFailure(result.error);
  }

  async function confirm(event: React.FormEvent) {
    event.preventDefault();
    if (!quote || shortOfFunds || need) return;
    // Once fired, never again from this dialog: a payout must not be sent twice.
    await fire.run(async () => {
      setSending(true);
      const result = await initiatePayout(request, quote.confirmationToken);
      if (result.ok) onSent(result.value.id);
      else if (result.error.code === 'OUTCOME_UNKNOWN' && result.error.journalId) onSent(result.error.journalId);
      else onFailed(result.error);
    });
  }

  const recipientName = `${request.customer.first_name} ${request.customer.last_name}`;
  return (
    <Dialog title={live ? t('confirm.titleLive') : t('confirm.title')} onClose={() => (sending ? undefined : onClose())}>
      <form onSubmit={(e) => void (quote ? confirm(e) : checkTyped(e))}>
        {live ? (
          <p className="notice notice-live" role="note">
            <strong>{t('confirm.liveNote')}</strong>
          </p>
        ) : null}
        {quote?.bySender ? (
          <p className="notice" role="note">
            {t('confirm.bySender')}
          </p>
        ) : null}
        <dl className="facts">
          <dt>{t('confirm.recipient')}</dt>
          <dd>
            {recipientName} · <span className="mono">{request.phone_number}</span> <span className="muted">({t('confirm.recipientHint')})</span>
          </dd>
          <dt>{t('confirm.amountSent')}</dt>
          <dd className="amount">{formatMoney(request.amount, currency)}</dd>
          <dt>{t('confirm.fee')}</dt>
          <dd>{quote === null ? t('confirm.feeAfterAmount') : quote.fee === null ? t('confirm.feeNotTold') : formatMoney(quote.fee, currency)}</dd>
          <dt>{t('confirm.total')}</dt>
          <dd className="amount">{quote?.total == null ? t('confirm.none') : formatMoney(quote.total, currency)}</dd>
          <dt>{t('confirm.balance')}</dt>
          <dd>{quote?.bySender ? t('confirm.balanceWithSender') : quote?.balance == null ? t('confirm.notReported') : formatMoney(quote.balance, currency)}</dd>
          <dt>{t('confirm.environment')}</dt>
          <dd>
            <span className={`env-pill env-${live ? 'live' : 'sandbox'}`}>{tg(live ? 'common:environment.live' : 'common:environment.sandbox')}</span>
          </dd>
          <dt>{t('confirm.profile')}</dt>
          <dd>{profile.name}</dd>
          <dt>{t('confirm.externalId')}</dt>
          <dd className="mono">{request.external_id ?? t('confirm.none')}</dd>
        </dl>
        {shortOfFunds && quote ? (
          <div className="notice notice-error" role="alert">
            <strong>{describeFailure({ code: 'INSUFFICIENT_FUNDS', message: '' }).title}</strong>
            <p>{t('confirm.shortBy', { total: formatMoney(quote.total, currency), balance: formatMoney(quote.balance, currency) })}</p>
            <p>{describeFailure({ code: 'INSUFFICIENT_FUNDS', message: '' }).next}</p>
          </div>
        ) : null}
        {live && !quote ? (
          <Field id="confirm-amount" label={t('confirm.typeAmount', { currency: currencyLabel(currency) })} errors={typed && !typedMatches ? [t('confirm.mismatch')] : undefined}>
            <input id="confirm-amount" inputMode="decimal" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} {...describedBy('confirm-amount', typed && !typedMatches ? ['x'] : undefined)} />
          </Field>
        ) : null}
        {need ? <AskApproval need={need} request={request} /> : null}
        {failure ? <ErrorNotice failure={failure} /> : null}
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose} disabled={sending}>
            {t('confirm.cancel')}
          </button>
          {need ? null : quote ? (
            <button type="submit" className={live ? 'danger' : 'primary'} disabled={sending || shortOfFunds}>
              {sending ? <Spinner label={t('confirm.sendingLabel')} /> : null}
              {sending ? t('confirm.sending') : t('confirm.send', { amount: formatMoney(request.amount, currency) })}
            </button>
          ) : (
            <button type="submit" className="danger" disabled={sending || !typedMatches}>
              {sending ? <Spinner label={t('confirm.checking')} /> : null}
              {t('confirm.confirmAmount')}
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
