/**
 * The Sandbox panel's request inspector: every request the local engine answered, live (main
 * pushes each new record), filtered by status and key; a row opens its detail with the diagnosis.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNotice, Loading } from '../components/common';
import { LoadMore } from '../components/LoadMore';
import { formatCount } from '../format/money';
import { formatDateTime } from '../format/time';
import { useInspector, useSandbox } from '../stores';
import type { StatusFilterChoice } from '../stores/inspector';
import { SandboxRequestDetail } from './SandboxRequestDetail';
import { formatMs } from './inspectorWords';

const STATUS_CHOICES: { value: StatusFilterChoice; label: 'statusAll' | 'status2xx' | 'status4xx' | 'status401' | 'status5xx' }[] = [
  { value: '', label: 'statusAll' },
  { value: '2xx', label: 'status2xx' },
  { value: '4xx', label: 'status4xx' },
  { value: '401', label: 'status401' },
  { value: '5xx', label: 'status5xx' },
];

export function SandboxRequests() {
  const { t } = useTranslation('inspector');
  const engine = useSandbox((s) => s.engine);
  const status = useInspector((s) => s.status);
  const failure = useInspector((s) => s.failure);
  const requests = useInspector((s) => s.requests);
  const capacity = useInspector((s) => s.capacity);
  const nextCursor = useInspector((s) => s.nextCursor);
  const filter = useInspector((s) => s.filter);
  const selectedId = useInspector((s) => s.selectedId);
  const load = useInspector((s) => s.load);
  const loadMore = useInspector((s) => s.loadMore);
  const setFilter = useInspector((s) => s.setFilter);
  const select = useInspector((s) => s.select);
  useEffect(() => {
    void load();
  }, [load]);
  const selected = requests.find((r) => r.id === selectedId) ?? null;
  const keys = engine?.keys.map((k) => k.publicKey) ?? [];
  const filtered = filter.status !== '' || filter.key !== '';

  return (
    <div className="card" aria-labelledby="requests-title">
      <h2 id="requests-title">
        {t('requests.title')} <span className="badge badge-completed">{t('requests.live')}</span>
      </h2>
      {status === 'ready' && capacity === 0 ? <p className="muted">{t('requests.off')}</p> : <p className="muted small">{t('requests.intro', { capacity: formatCount(capacity) })}</p>}
      <form className="inline-form" aria-label={t('requests.title')} onSubmit={(e) => e.preventDefault()}>
        <label>
          {t('requests.filterStatus')}
          <select value={filter.status} onChange={(e) => void setFilter({ status: e.target.value as StatusFilterChoice })}>
            {STATUS_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>{t(`requests.${choice.label}`)}</option>
            ))}
          </select>
        </label>
        <label>
          {t('requests.filterKey')}
          <select value={filter.key} onChange={(e) => void setFilter({ key: e.target.value })}>
            <option value="">{t('requests.filterKeyAll')}</option>
            {[...new Set([...keys, ...(filter.key ? [filter.key] : [])])].map((key) => (
              <option key={key} value={key}>{key}</option>
            ))}
          </select>
        </label>
        <button type="button" className="secondary small" onClick={() => void load()}>{t('requests.refresh')}</button>
      </form>
      {status === 'loading' ? <Loading label={t('requests.title')} /> : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {status === 'ready' && requests.length === 0 ? (
        <Empty>{filtered ? t('requests.noneFiltered') : t('requests.none', { url: engine?.url ?? '' })}</Empty>
      ) : null}
      {requests.length > 0 ? (
        <>
          <div className="list-bar"><span>{t('requests.count', { count: requests.length, formatted: formatCount(requests.length) })}</span></div>
          <div className="requests-scroll">
            <table className="table small requests-table">
              <thead>
                <tr>
                  <th scope="col">{t('requests.colTime')}</th>
                  <th scope="col">{t('requests.colRequest')}</th>
                  <th scope="col">{t('requests.colStatus')}</th>
                  <th scope="col">{t('requests.colKey')}</th>
                  <th scope="col" className="num">{t('requests.colDuration')}</th>
                </tr>
              </thead>
              <tbody>
                {requests.map((r) => (
                  <tr key={r.id} className={r.id === selectedId ? 'selected' : undefined}>
                    <td className="nowrap">{formatDateTime(r.at)}</td>
                    <td>
                      <button type="button" className="link mono" onClick={() => select(r.id)} aria-label={t('requests.open', { method: r.method, path: r.query ? `${r.path}?${r.query}` : r.path, status: r.status })}>
                        {r.method} {r.path}{r.query ? `?${r.query}` : ''}
                      </button>
                    </td>
                    <td className="nowrap">
                      <span className={`badge ${r.status < 400 ? 'badge-completed' : 'badge-failed'}`}>{r.status}</span>{' '}
                      {r.code ? <span className="mono small">{r.code}</span> : null}
                    </td>
                    <td className="mono nowrap small">{r.publicKey ?? <span className="muted">{t('requests.noKey')}</span>}</td>
                    <td className="num nowrap">{t('requests.duration', { ms: formatMs(r.durationMs) })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore label={t('requests.more')} next={nextCursor} onMore={loadMore} />
        </>
      ) : null}
      {selected ? <SandboxRequestDetail record={selected} onClose={() => select(null)} /> : null}
    </div>
  );
}
