/** Past batches with their state, so an interrupted or running batch can be reopened. */
import { useTranslation } from 'react-i18next';
import type { BatchSummary } from '../../../shared/api';
import { Empty, ErrorNotice, Loading, storedProfileName } from '../components/common';
import { formatCount, formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { useBatch, useProfiles } from '../stores';

export function BatchStateBadge({ state }: { state: BatchSummary['state'] }) {
  const { t } = useTranslation(['batch', 'common']);
  return (
    <span className="batch-state" data-state={state}>
      {t(`state.${state}`)}
    </span>
  );
}

export function BatchList() {
  const { t } = useTranslation(['batch', 'common']);
  const list = useBatch((s) => s.list);
  const open = useBatch((s) => s.open);
  const currency = useProfiles((s) => s.balance?.currency ?? 'XAF');
  const batches = list.value ?? [];
  return (
    <section className="card" aria-labelledby="batch-list-title">
      <h2 id="batch-list-title">{t('list.heading')}</h2>
      {list.status === 'loading' ? <Loading label={t('list.loading')} /> : null}
      {list.error ? <ErrorNotice failure={list.error} /> : null}
      {list.status === 'ready' && batches.length === 0 ? <Empty>{t('list.empty')}</Empty> : null}
      {batches.length > 0 ? (
        <table className="table batch-list">
          <thead>
            <tr>
              <th>{t('list.columns.name')}</th>
              <th>{t('list.columns.created')}</th>
              <th>{t('list.columns.profile')}</th>
              <th className="num">{t('list.columns.rows')}</th>
              <th className="num">{t('list.columns.total')}</th>
              <th>{t('list.columns.state')}</th>
              <th>
                <span className="sr-only">{t('table.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {batches.map((batch) => (
              <tr key={batch.id} data-batch={batch.id}>
                <td className="name">{batch.fileName}</td>
                <td className="muted small">{formatDateTime(batch.createdAt)}</td>
                <td>
                  {storedProfileName(batch.profileId, batch.profileName)} <span className={`env-pill env-${batch.environment}`}>{t(`common:environment.${batch.environment}`)}</span>
                </td>
                <td className="num">{formatCount(batch.counts.rows)}</td>
                <td className="num">{formatMoney(batch.totalAmount, currency)}</td>
                <td>
                  <BatchStateBadge state={batch.state} />
                </td>
                <td className="num">
                  <button type="button" className="secondary small" aria-label={t('list.openLabel', { name: batch.fileName, state: t(`state.${batch.state}`) })} onClick={() => void open(batch.id)}>
                    {t('list.open')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
