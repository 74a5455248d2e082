/** New payment: the form, local validation, the API's field errors, then the timeline. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiFailure } from '../../../shared/api';
import { ErrorNotice, Spinner, profileName } from '../components/common';
import { useSingleFlight } from '../components/useSingleFlight';
import { activeProfile } from '../stores/profiles';
import { useProfiles, useTransactions, useUi } from '../stores';
import { TransactionFields, useTransactionForm } from './transactionForm';

export function PaymentScreen() {
  const { t } = useTranslation(['payment', 'common']);
  const methods = useProfiles((s) => s.methods);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const profile = useProfiles((s) => activeProfile(s));
  const createPayment = useTransactions((s) => s.createPayment);
  const openTransaction = useUi((s) => s.openTransaction);
  const prefill = useUi((s) => s.prefill);
  const clearPrefill = useUi((s) => s.clearPrefill);
  const form = useTransactionForm(methods, currency, prefill, clearPrefill);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const flight = useSingleFlight();
  const sending = flight.busy;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void flight.run(async () => {
      setFailure(null);
      const request = form.build();
      if (!request) return;
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
    });
  }

  return (
    <section aria-labelledby="payment-title" className="screen">
      <header className="screen-head">
        <h1 id="payment-title">{t('title')}</h1>
        <p className="muted">{profile ? t('introProfile', { name: profileName(profile), environment: t(`common:environment.${profile.environment}`) }) : t('intro')}</p>
      </header>
      <form className="card form" onSubmit={submit} noValidate aria-label={t('form')}>
        {failure ? <ErrorNotice failure={failure} /> : null}
        <TransactionFields form={form} methods={methods} currency={currency} idPrefix="payment" />
        <div className="actions">
          <button type="submit" className="primary" disabled={sending}>
            {sending ? <Spinner label={t('sendingLabel')} /> : null}
            {sending ? t('sending') : t('submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
