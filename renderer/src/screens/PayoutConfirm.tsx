/** The payout confirmation step: restates everything, and fires the payout at most once. */
import { useRef, useState } from 'react';
import type { ApiFailure, PayoutQuote } from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { Dialog } from '../components/Dialog';
import { ErrorNotice, Field, Spinner, describedBy } from '../components/common';
import { formatMoney, parseAmount } from '../format/money';
import { ERROR_MESSAGES } from '../messages/errors';
import { useTransactions } from '../stores';

export function PayoutConfirmDialog({
  request,
  quote,
  onClose,
  onSent,
  onFailed,
}: {
  request: TransactionRequest;
  quote: PayoutQuote;
  onClose: () => void;
  onSent: (journalId: string) => void;
  onFailed: (error: ApiFailure) => void;
}) {
  const preparePayout = useTransactions((s) => s.preparePayout);
  const initiatePayout = useTransactions((s) => s.initiatePayout);
  const live = quote.environment === 'live';
  const [typed, setTyped] = useState('');
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const fired = useRef(false);
  const typedAmount = parseAmount(typed, quote.currency);
  const typedMatches = 'amount' in typedAmount && typedAmount.amount === quote.amount;
  const shortOfFunds = quote.balance !== null && quote.total !== null && quote.total > quote.balance;
  const canSend = !sending && !shortOfFunds && (!live || typedMatches);

  async function confirm(event: React.FormEvent) {
    event.preventDefault();
    // Once fired, never again from this dialog: a payout must not be sent twice.
    if (fired.current || !canSend) return;
    fired.current = true;
    setSending(true);
    let token = quote.confirmationToken;
    if (live) {
      // The token for a live payout binds the amount the user typed.
      const again = await preparePayout(request, quote.amount);
      if (!again.ok) {
        fired.current = false;
        setSending(false);
        setFailure(again.error);
        return;
      }
      token = again.value.confirmationToken;
    }
    const result = await initiatePayout(request, token);
    if (result.ok) onSent(result.value.id);
    else if (result.error.code === 'OUTCOME_UNKNOWN' && result.error.journalId) onSent(result.error.journalId);
    else onFailed(result.error);
  }

  return (
    <Dialog title={live ? 'Confirm LIVE payout' : 'Confirm payout'} onClose={() => (sending ? undefined : onClose())}>
      <form onSubmit={(e) => void confirm(e)}>
        {live ? (
          <p className="notice notice-live" role="note">
            This is a <strong>live</strong> payout: real money leaves the wallet.
          </p>
        ) : null}
        <dl className="facts">
          <dt>Recipient</dt>
          <dd>
            {quote.recipient.name} · <span className="mono">{quote.recipient.phoneNumber}</span>
          </dd>
          <dt>Amount</dt>
          <dd className="amount">{formatMoney(quote.amount, quote.currency)}</dd>
          <dt>Fee</dt>
          <dd>{quote.fee === null ? 'Not told in advance by this service' : formatMoney(quote.fee, quote.currency)}</dd>
          <dt>Total from the wallet</dt>
          <dd className="amount">{quote.total === null ? '—' : formatMoney(quote.total, quote.currency)}</dd>
          <dt>Wallet balance</dt>
          <dd>{quote.balance === null ? 'Not reported' : formatMoney(quote.balance, quote.currency)}</dd>
          <dt>Environment</dt>
          <dd>
            <span className={`env-pill env-${quote.environment}`}>{quote.environment}</span>
          </dd>
          <dt>Profile</dt>
          <dd>{quote.profileName}</dd>
          <dt>External id</dt>
          <dd className="mono">{request.external_id ?? '—'}</dd>
        </dl>
        {shortOfFunds ? (
          <div className="notice notice-error" role="alert">
            <strong>{ERROR_MESSAGES.INSUFFICIENT_FUNDS.title}</strong>
            <p>
              {formatMoney(quote.total, quote.currency)} is needed and the wallet holds {formatMoney(quote.balance, quote.currency)}.
            </p>
            <p>{ERROR_MESSAGES.INSUFFICIENT_FUNDS.next}</p>
          </div>
        ) : null}
        {live ? (
          <Field id="confirm-amount" label={`Type the amount (${quote.currency}) to confirm`} errors={typed && !typedMatches ? ['does not match the payout amount'] : undefined}>
            <input id="confirm-amount" inputMode="decimal" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} {...describedBy('confirm-amount', typed && !typedMatches ? ['x'] : undefined)} />
          </Field>
        ) : null}
        {failure ? <ErrorNotice failure={failure} /> : null}
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose} disabled={sending}>
            Cancel
          </button>
          <button type="submit" className={live ? 'danger' : 'primary'} disabled={!canSend}>
            {sending ? <Spinner label="Sending payout" /> : null}
            {sending ? 'Sending…' : `Send ${formatMoney(quote.amount, quote.currency)}`}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
