/** New payment: the form, local validation, the API's field errors, then the timeline. */
import { useRef, useState } from 'react';
import type { ApiFailure } from '../../../shared/api';
import { ErrorNotice, Spinner } from '../components/common';
import { activeProfile } from '../stores/profiles';
import { useProfiles, useTransactions, useUi } from '../stores';
import { TransactionFields, useTransactionForm } from './transactionForm';

export function PaymentScreen() {
  const methods = useProfiles((s) => s.methods);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const profile = useProfiles((s) => activeProfile(s));
  const createPayment = useTransactions((s) => s.createPayment);
  const openTransaction = useUi((s) => s.openTransaction);
  const prefill = useUi((s) => s.prefill);
  const clearPrefill = useUi((s) => s.clearPrefill);
  const form = useTransactionForm(methods, currency, prefill, clearPrefill);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [sending, setSending] = useState(false);
  // A ref, not state: a second click in the same tick must see the first one.
  const inFlight = useRef(false);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (inFlight.current) return;
    setFailure(null);
    const request = form.build();
    if (!request) return;
    inFlight.current = true;
    setSending(true);
    try {
      const result = await createPayment(request);
      if (result.ok) {
        form.reset();
        openTransaction(result.value.id);
        return;
      }
      if (result.error.code === 'OUTCOME_UNKNOWN' && result.error.journalId) {
        openTransaction(result.error.journalId);
        return;
      }
      if (result.error.fields) form.showServerErrors(result.error.fields);
      setFailure(result.error);
    } finally {
      inFlight.current = false;
      setSending(false);
    }
  }

  return (
    <section aria-labelledby="payment-title" className="screen">
      <header className="screen-head">
        <h1 id="payment-title">New payment</h1>
        <p className="muted">Ask a customer to pay: they approve the prompt on their phone{profile ? ` (profile ${profile.name}, ${profile.environment})` : ''}.</p>
      </header>
      <form className="card form" onSubmit={(e) => void submit(e)} noValidate aria-label="New payment">
        {failure ? <ErrorNotice failure={failure} /> : null}
        <TransactionFields form={form} methods={methods} currency={currency} idPrefix="payment" />
        <div className="actions">
          <button type="submit" className="primary" disabled={sending}>
            {sending ? <Spinner label="Sending payment" /> : null}
            {sending ? 'Sending…' : 'Request payment'}
          </button>
        </div>
      </form>
    </section>
  );
}
