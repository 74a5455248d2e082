/** New payment: the form, local validation, the API's field errors, then the timeline. */
import { AlreadySentAction } from '../components/AlreadySentAction';
import { useTranslation } from 'react-i18next';
import { ErrorNotice, Spinner, profileName } from '../components/common';
import { activeProfile } from '../stores/profiles';
import { useProfiles, useTransactions, useUi } from '../stores';
import { TransactionFields, useTransactionSubmit } from './transactionForm';
import { Screen } from '../components/Screen';
import { SendRefusedNote, useMaySend } from '../components/WorkspaceBar';

export function PaymentScreen() {
  const maySend = useMaySend();
  const { t } = useTranslation(['payment', 'common']);
  const methods = useProfiles((s) => s.methods);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const profile = useProfiles((s) => activeProfile(s));
  const createPayment = useTransactions((s) => s.createPayment);
  const openTransaction = useUi((s) => s.openTransaction);
  const { form, failure, busy: sending, submitWith, showFailure } = useTransactionSubmit(methods, currency);

  const submit = submitWith(async (request) => {
    const result = await createPayment(request);
    if (result.ok) {
      form.reset();
      openTransaction(result.value.id);
    } else if (result.error.code === 'OUTCOME_UNKNOWN' && result.error.journalId) {
      openTransaction(result.error.journalId);
    } else showFailure(result.error);
  });

  return (
    <Screen id="payment" title={t('title')} intro={profile ? t('introProfile', { name: profileName(profile), environment: t(`common:environment.${profile.environment}`) }) : t('intro')}>
      <form className="card form" onSubmit={submit} noValidate aria-label={t('form')}>
        {failure ? <ErrorNotice failure={failure} /> : null}
        <AlreadySentAction failure={failure} label={t('openExisting')} />
        <TransactionFields form={form} methods={methods} currency={currency} idPrefix="payment" />
        <div className="actions">
          <button type="submit" className="primary" disabled={sending || form.refused || !maySend}>
            {sending ? <Spinner label={t('sendingLabel')} /> : null}
            {sending ? t('sending') : t('submit')}
          </button>
        </div>
        <SendRefusedNote />
      </form>
    </Screen>
  );
}
