/**
 * Transactions still processing more than 10 minutes after they were created, oldest first: each
 * row opens the transaction's timeline, and Verify asks the provider for the outcome right here.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { JournalTransaction, OverviewResult } from '../../../shared/api';
import { isListedStatus } from '../../../shared/contract/codes';
import { ErrorNotice, Spinner, statusLabel } from '../components/common';
import { formatCount, formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { useOverview, useProfiles, useTransactions, useUi } from '../stores';
import { senderHolds } from '../stores/profiles';
import { useSingleFlight } from '../components/useSingleFlight';

/** What Verify said about a transaction, kept after the refreshed list has dropped its row. */
function VerifiedNote({ id, what }: { id: string; what: string }) {
  const { t } = useTranslation('overview');
  const verify = useTransactions((s) => s.verify[id]);
  const status = useTransactions((s) => s.entries[id]?.detail?.transaction.status);
  if (!verify || verify.busy) return null;
  if (verify.error) return <ErrorNotice failure={verify.error} title={`${what} · ${t('stuck.verifyFailed')}`} />;
  return (
    <p className="notice notice-info ov-verified" role="status">
      {what} · {status ? t('stuck.verified', { status: isListedStatus(status) ? t(`status.${status}`) : statusLabel(status) }) : null}
    </p>
  );
}

function StuckRow({ tx, onVerify }: { tx: JournalTransaction; onVerify: (id: string, what: string) => void }) {
  const { t } = useTranslation('overview');
  const openTransaction = useUi((s) => s.openTransaction);
  const verify = useTransactions((s) => s.verify[tx.id]);
  const verifyNow = useTransactions((s) => s.verifyNow);
  const reload = useOverview((s) => s.load);
  const verifying = useSingleFlight();
  // Only the team sender reads the service for a sender-held profile (main refuses Verify): it says so instead.
  const bySender = useProfiles((s) => senderHolds(s, tx.profileId));
  const customer = `${tx.customer.first_name} ${tx.customer.last_name}`;
  const amount = formatMoney(tx.amount, tx.currency);
  const kind = t(`kindOne.${tx.kind}`);
  const what = t('stuck.open', { kind, amount, customer, phone: tx.phoneNumber });
  return (
    <li className="ov-stuck-row">
      <button type="button" className="row-button ov-stuck-open" onClick={() => openTransaction(tx.id)}>
        <span className="ov-stuck-what">{what}</span>
        <span className="small muted">{formatDateTime(tx.createdAt)}</span>
        <span className="mono small muted">{tx.transactionId}</span>
      </button>
      <div className="ov-stuck-actions">
        {bySender ? (
          <span className="small muted followed-by-sender">{t('stuck.followedBySender')}</span>
        ) : (
          <button
            type="button"
            className="primary small"
            aria-label={t('stuck.verifyLabel', { kind: kind.toLowerCase(), amount, customer })}
            disabled={verify?.busy}
            onClick={() =>
              void verifying.run(async () => {
                onVerify(tx.id, what);
                await verifyNow(tx.id);
                await reload();
              })
            }
          >
            {verify?.busy ? <Spinner label={t('stuck.verifying')} /> : null} {verify?.busy ? t('stuck.verifying') : t('stuck.verify')}
          </button>
        )}
      </div>
    </li>
  );
}

export function OverviewStuck({ stuck }: { stuck: OverviewResult['stuck'] }) {
  const { t } = useTranslation('overview');
  const minutes = formatCount(stuck.olderThanMinutes);
  const [verified, setVerified] = useState<{ id: string; what: string }[]>([]);
  const onVerify = (id: string, what: string) => setVerified((list) => [{ id, what }, ...list.filter((item) => item.id !== id)].slice(0, 5));
  return (
    <section className="card ov-stuck" aria-labelledby="ov-stuck-title">
      <h2 id="ov-stuck-title">
        {t('stuck.title', { minutes })} {stuck.total > 0 ? <span className="badge badge-processing">{formatCount(stuck.total)}</span> : null}
      </h2>
      {verified.map((item) => (
        <VerifiedNote key={item.id} id={item.id} what={item.what} />
      ))}
      {stuck.total === 0 ? (
        <p className="ov-empty">{t('stuck.none', { minutes })}</p>
      ) : (
        <>
          <p className="muted small">{t('stuck.help')}</p>
          <ul className="ov-stuck-list" aria-labelledby="ov-stuck-title">
            {stuck.rows.map((tx) => (
              <StuckRow key={tx.id} tx={tx} onVerify={onVerify} />
            ))}
          </ul>
          {stuck.total > stuck.rows.length ? <p className="muted small">{t('stuck.more', { shown: formatCount(stuck.rows.length), total: formatCount(stuck.total) })}</p> : null}
        </>
      )}
    </section>
  );
}
