/**
 * The Overview, the screen the console opens on: today's and the last 7 days' figures of the
 * active profile (by status, by kind, success rate), the wallet balance, charts of volume and
 * failures, and the transactions processing for more than 10 minutes, each with Verify.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { CurrencyAmount, OverviewResult, OverviewSummary } from '../../../shared/api';
import { ErrorNotice, Loading, Spinner, storedProfileName } from '../components/common';
import { formatCount, formatMoney } from '../format/money';
import { formatDateTime } from '../format/time';
import { useOverview, useProfiles } from '../stores';
import { BALANCE_FRESH_MS, liveRefused } from '../stores/profiles';
import { OVERVIEW_MARKS } from '../stores/overview';
import { chunk, useChunk } from '../chunks';
import { OverviewStuck } from './OverviewStuck';
import { amountsText, formatPercent } from './overviewFormat';
import '../overview.css';

/**
 * The charts (hand-drawn SVG) are their own chunk: only the Overview needs them. Asked for once the
 * figures are drawn, and drawn when in; the figures never wait for them.
 */
const CHARTS = chunk(() => import('./OverviewCharts').then((m) => m.OverviewCharts));

/** The charts, asked for once the figures are on screen (their chunk must not compete with them). */
function Charts({ data }: { data: OverviewResult }) {
  const { t } = useTranslation('overview');
  const OverviewCharts = useChunk(CHARTS);
  return OverviewCharts ? <OverviewCharts data={data} /> : <Loading label={t('loading')} />;
}

/**
 * The figures (cards, tables) on screen: the frame after React committed this answer. Returns
 * whether figures have been drawn once: the charts are asked for and rendered only from then on,
 * in a commit of their own, so the first figures never wait for recharts (issue 28: the charts
 * chunk, preloaded, was in by then and rendered in the figures' commit, ~100 ms before the first
 * paint; fetched beside the entry, its 360 kB competed with it for the two cores).
 */
function useFiguresDrawn(version: number): boolean {
  const [drawnOnce, setDrawnOnce] = useState(false);
  useEffect(() => {
    if (version === 0) return;
    const frame = requestAnimationFrame(() => {
      performance.mark(OVERVIEW_MARKS.figures);
      // The charts' chunk runs now, not one render later when <Charts> mounts (it is preloaded).
      void CHARTS.load().catch(() => undefined);
      // Set in the frame's callback: React renders the charts in a task after this frame's paint.
      setDrawnOnce(true);
    });
    return () => cancelAnimationFrame(frame);
  }, [version]);
  return drawnOnce;
}

/** The currency to show a zero in: the one the profile's figures or wallet use. */
function mainCurrency(data: OverviewResult, balanceCurrency: string | undefined): string {
  return data.week.total.amounts[0]?.currency ?? (balanceCurrency || 'XAF');
}

/** A period's figures split one way (by kind, by status): a row each, its count and amounts. */
function CountTable({ heading, rows, currency, empty }: { heading: string; rows: { key: string; label: ReactNode; count: number; amounts: readonly CurrencyAmount[] }[]; currency: string; empty?: string }) {
  const { t } = useTranslation('overview');
  return (
    <table className="table ov-table">
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          <th scope="col" className="num">{t('column.count')}</th>
          <th scope="col" className="num">{t('column.amount')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty ? (
          <tr>
            <td colSpan={3} className="muted">
              {empty}
            </td>
          </tr>
        ) : (
          rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              <td className="num">{formatCount(row.count)}</td>
              <td className="num">{amountsText(row.amounts, currency)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

function PeriodCard({ id, title, summary, currency }: { id: string; title: string; summary: OverviewSummary; currency: string }) {
  const { t } = useTranslation('overview');
  const { success } = summary;
  const statuses = summary.byStatus.filter((row) => row.count > 0);
  return (
    <section className="card ov-period" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p className="ov-big">{t('transactions', { count: summary.total.count, formatted: formatCount(summary.total.count) })}</p>
      <p className="ov-amount">{amountsText(summary.total.amounts, currency)}</p>
      <div className="ov-rate" title={t('successHelp')}>
        <span className="ov-label">{t('successRate')}</span>{' '}
        <strong>{success.rate === null ? '—' : formatPercent(success.rate)}</strong>{' '}
        <span className="muted small">
          {success.rate === null ? t('successNone') : t('successDetail', { completed: formatCount(success.completed), final: formatCount(success.final) })}
        </span>
      </div>
      <h3>{t('byKind')}</h3>
      <CountTable
        heading={t('column.kind')}
        currency={currency}
        rows={summary.byKind.map((row) => ({ key: row.kind, label: t(`kind.${row.kind}`), count: row.count, amounts: row.amounts }))}
      />
      <h3>{t('byStatus')}</h3>
      <CountTable
        heading={t('column.status')}
        currency={currency}
        empty={t('transactions', { count: 0, formatted: formatCount(0) })}
        rows={statuses.map((row) => ({
          key: row.status,
          label: (
            <>
              <span className={`ov-dot ov-dot-${row.status}`} aria-hidden="true" /> {t(`status.${row.status}`)}
            </>
          ),
          count: row.count,
          amounts: row.amounts,
        }))}
      />
    </section>
  );
}

function BalanceCard() {
  const { t } = useTranslation(['overview', 'payout']);
  const balance = useProfiles((s) => s.balance);
  const failure = useProfiles((s) => s.balanceError);
  const loadBalance = useProfiles((s) => s.loadBalance);
  const refused = useProfiles((s) => liveRefused(s));
  useEffect(() => {
    void loadBalance({ maxAgeMs: BALANCE_FRESH_MS });
  }, [loadBalance]);
  return (
    <section className="card ov-balance" aria-labelledby="ov-balance-title">
      <h2 id="ov-balance-title">{t('balance.title')}</h2>
      {refused ? (
        // Why there is no figure, in words (never the code LIVE_REFUSED).
        <p className="muted">{t('payout:balanceRefused')}</p>
      ) : failure ? (
        <ErrorNotice failure={failure} title={t('balance.failed')} />
      ) : !balance ? (
        <Loading label={t('balance.loading')} />
      ) : balance.available && balance.balance !== null ? (
        <p className="ov-big">{formatMoney(balance.balance, balance.currency)}</p>
      ) : (
        <p className="muted">{t('balance.unavailable')}</p>
      )}
    </section>
  );
}

export function OverviewScreen() {
  const { t } = useTranslation(['overview', 'common']);
  const status = useOverview((s) => s.status);
  const data = useOverview((s) => s.data);
  const error = useOverview((s) => s.error);
  const load = useOverview((s) => s.load);
  const stop = useOverview((s) => s.stop);
  const activeId = useProfiles((s) => s.activeId);
  const balanceCurrency = useProfiles((s) => s.balance?.currency);
  const version = useOverview((s) => s.version);
  const figuresDrawn = useFiguresDrawn(version);
  // A profile switch forgets the previous profile's figures at once and asks afresh (an answer in
  // flight was for the previous profile); a plain remount may reuse the request in flight.
  const shownFor = useRef(activeId);
  useEffect(() => {
    const switched = shownFor.current !== activeId;
    shownFor.current = activeId;
    void load(switched ? { forget: true } : { reuseInFlight: true });
    return stop;
  }, [load, stop, activeId]);

  const currency = data ? mainCurrency(data, balanceCurrency) : 'XAF';
  return (
    <section className="screen wide overview" aria-labelledby="overview-title">
      <header className="screen-head ov-head">
        <div>
          <h1 id="overview-title">{t('title')}</h1>
          {data ? (
            <p className="muted">
              {t(data.journal === 'team' ? 'introTeam' : 'intro', { profile: storedProfileName(data.profile.id, data.profile.name), environment: t(`common:environment.${data.profile.environment}`) })}
            </p>
          ) : null}
        </div>
        <div className="ov-refresh">
          {data ? <span className="muted small">{t('updated', { time: formatDateTime(data.generatedAt) })}</span> : null}
          <button type="button" className="secondary small" onClick={() => void load()} disabled={status === 'loading'}>
            {status === 'loading' && data ? <Spinner label={t('loading')} /> : null} {t('refresh')}
          </button>
        </div>
      </header>
      {error ? <ErrorNotice failure={error} title={t('failed')} /> : null}
      {!data ? (
        status === 'error' ? null : <Loading label={t('loading')} />
      ) : (
        <>
          <div className="ov-grid">
            <PeriodCard id="ov-today" title={t('period.today')} summary={data.today} currency={currency} />
            <PeriodCard id="ov-week" title={t('period.week')} summary={data.week} currency={currency} />
            <div className="ov-side">
              <BalanceCard />
              <OverviewStuck stuck={data.stuck} />
            </div>
          </div>
          {figuresDrawn ? <Charts data={data} /> : <Loading label={t('loading')} />}
        </>
      )}
    </section>
  );
}
