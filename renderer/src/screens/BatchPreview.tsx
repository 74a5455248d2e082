/** The preview: how many payouts, how much, the fees, what leaves the wallet against its balance. */
import { useTranslation } from 'react-i18next';
import type { BatchDetail, BatchPreview } from '../../../shared/api';
import { ErrorNotice, Loading } from '../components/common';
import { formatCount, formatMoney } from '../format/money';
import { useBatch } from '../stores';

/**
 * A balance that could not be read says why (the service's refusal: rate limit, maintenance...)
 * and offers to check again: a transient refusal is never shown as a property of the service.
 */
export function BalanceUnreadReason({ preview, onCheckAgain, checking }: { preview: BatchPreview; onCheckAgain: () => void; checking: boolean }) {
  const { t } = useTranslation(['batch', 'common']);
  if (preview.balance !== null) return null;
  // The team sender holds the keys: the wallet is its to read, nothing to check again from here.
  if (preview.bySender) return <span className="balance-unread">{t('preview.balanceWithSender')}</span>;
  const unread = preview.balanceUnread ?? null;
  const reason =
    unread === null
      ? t('preview.balanceUnknown')
      : unread.httpStatus === 429
        ? t('preview.balanceRateLimited')
        : unread.httpStatus === 503
          ? t('preview.balanceMaintenance')
          : unread.httpStatus === null
            ? t('preview.balanceNetwork', { message: unread.message })
            : t('preview.balanceRefused', { status: unread.httpStatus, code: unread.code, message: unread.message });
  return (
    <span className="balance-unread">
      <span>
        {reason}
        {unread?.retryAfterSeconds ? ` ${t('preview.balanceRetryAfter', { seconds: formatCount(unread.retryAfterSeconds) })}` : null}
      </span>{' '}
      <button type="button" className="link" onClick={onCheckAgain} disabled={checking}>
        {t('preview.balanceCheckAgain')}
      </button>
    </span>
  );
}

export function PreviewTotals({ preview }: { preview: BatchPreview }) {
  const runPreview = useBatch((s) => s.runPreview);
  const checking = useBatch((s) => s.preview.status === 'loading');
  const { t } = useTranslation(['batch', 'common']);
  const { currency } = preview;
  return (
    <div className="batch-totals">
      <div className="batch-total">
        <span>{t('preview.rows')}</span>
        <strong>{formatCount(preview.count)}</strong>
      </div>
      <div className="batch-total">
        <span>{t('preview.amount')}</span>
        <strong>{formatMoney(preview.totalAmount, currency)}</strong>
      </div>
      <div className="batch-total">
        <span>{t('preview.fees')}</span>
        <strong>{preview.feesKnown && preview.totalFees !== null ? formatMoney(preview.totalFees, currency) : t('preview.feesUnknown')}</strong>
        {preview.feesKnown ? <span className="hint">{t('preview.feesFromSchedule')}</span> : null}
      </div>
      <div className="batch-total" data-tone={preview.overBalance ? 'bad' : undefined}>
        <span>{t('preview.total')}</span>
        <strong>{formatMoney(preview.totalDebit, currency)}</strong>
        {preview.feesKnown ? null : <span className="hint">{t('preview.totalUnknown')}</span>}
      </div>
      <div className="batch-total" data-tone={preview.overBalance ? 'bad' : undefined}>
        <span>{t('preview.balance')}</span>
        {preview.balance === null ? <BalanceUnreadReason preview={preview} checking={checking} onCheckAgain={() => void runPreview(true)} /> : <strong>{formatMoney(preview.balance, currency)}</strong>}
        {preview.balance !== null && !preview.overBalance ? <span className="hint">{t('preview.after', { amount: formatMoney(preview.balance - preview.totalDebit, currency) })}</span> : null}
      </div>
    </div>
  );
}

export function OverBalanceNotice({ preview }: { preview: BatchPreview }) {
  const { t } = useTranslation(['batch', 'common']);
  if (!preview.overBalance) return null;
  return (
    <div className="notice notice-error" role="alert">
      <strong>{t('preview.overBalance', { total: formatMoney(preview.totalDebit, preview.currency), balance: formatMoney(preview.balance, preview.currency) })}</strong>
      <p>{t('preview.overBalanceNext')}</p>
    </div>
  );
}

export function BatchPreviewCard({ detail }: { detail: BatchDetail }) {
  const { t } = useTranslation(['batch', 'common']);
  const preview = useBatch((s) => s.preview);
  const runPreview = useBatch((s) => s.runPreview);
  const blocked = detail.batch.counts.invalid > 0;
  return (
    <section className="card" aria-labelledby="batch-preview-title">
      <h2 id="batch-preview-title">{t('preview.heading')}</h2>
      {blocked ? <p className="muted">{t('preview.fixFirst')}</p> : null}
      {!blocked && preview.status === 'loading' && !preview.value ? <Loading label={t('preview.loading')} /> : null}
      {preview.error ? <ErrorNotice failure={preview.error} /> : null}
      {!blocked && preview.value ? (
        <>
          <PreviewTotals preview={preview.value} />
          <OverBalanceNotice preview={preview.value} />
        </>
      ) : null}
      {!blocked && preview.status === 'error' ? (
        <button type="button" className="secondary" onClick={() => void runPreview()}>
          {t('common:actions.retry')}
        </button>
      ) : null}
    </section>
  );
}
