/**
 * The Overview's two charts (hand-drawn SVG, OverviewBars): volume per day and failures by reason.
 * Colours come from CSS variables (overview.css), so both read in light and dark themes. Each chart is a
 * <figure> whose caption says what it shows, with the same numbers in a table: hidden for the
 * volume (a screen reader reads it), visible for the failures (the human sentence of each code).
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OverviewResult } from '../../../shared/api';
import { formatCount } from '../format/money';
import { describeFailedCode } from '../messages/errors';
import { useOverview } from '../stores';
import { OVERVIEW_MARKS } from '../stores/overview';
import { FailureBars, VolumeBars } from './OverviewBars';
import { amountsText, formatDay, labelAxisWidth } from './overviewFormat';

/**
 * Marks the figures as drawn once the charts' SVG is on screen for this answer (`data-drawn` for
 * the E2E, a performance mark for the bench): the frame after React committed the bars.
 */
function useDrawn(ref: React.RefObject<HTMLElement | null>, version: number, charts: number): number {
  const [drawn, setDrawn] = useState(0);
  useEffect(() => {
    let frame = 0;
    let tries = 0;
    const check = () => {
      const svgs = ref.current?.querySelectorAll('svg.ov-svg:not([width="0"])').length ?? 0;
      if (svgs >= charts || tries > 120) {
        performance.mark(OVERVIEW_MARKS.drawn);
        setDrawn(version);
        return;
      }
      tries += 1;
      frame = requestAnimationFrame(check);
    };
    frame = requestAnimationFrame(check);
    return () => cancelAnimationFrame(frame);
  }, [ref, version, charts]);
  return drawn;
}

export function OverviewCharts({ data }: { data: OverviewResult }) {
  const { t } = useTranslation('overview');
  const version = useOverview((s) => s.version);
  const ref = useRef<HTMLDivElement>(null);
  const currency = data.week.total.amounts[0]?.currency ?? 'XAF';
  const days = data.days.map((day) => ({
    label: formatDay(day.start),
    tick: formatDay(day.start, true),
    payments: day.payments.count,
    payouts: day.payouts.count,
    failed: day.failed,
  }));
  const todayFailures = new Map(data.today.failures.map((row) => [row.code, row.count]));
  const failures = data.week.failures.map((row) => ({
    code: row.code,
    label: row.code ?? t('failures.noCodeLabel'),
    // Only payouts: the payout sentence (the recipient); only payments: the payer's; both: both.
    sentence:
      row.code === null
        ? t('failures.noCode')
        : row.payouts === row.count
          ? describeFailedCode(row.code, 'payout')
          : row.payouts
            ? `${describeFailedCode(row.code)} / ${describeFailedCode(row.code, 'payout')}`
            : describeFailedCode(row.code),
    week: row.count,
    today: todayFailures.get(row.code) ?? 0,
    amounts: row.amounts,
  }));
  // Axes as wide as their longest label (a failure code, a French name, a large count), so none is cut.
  const countAxisWidth = labelAxisWidth([formatCount(Math.max(0, ...days.map((day) => day.payments + day.payouts)))]);
  const reasonAxisWidth = labelAxisWidth(failures.map((row) => row.label), { min: 80 });
  const drawn = useDrawn(ref, version, failures.length > 0 ? 2 : 1);
  const names = { payments: t('kind.payment'), payouts: t('kind.payout') };

  return (
    <div className="ov-charts" ref={ref} data-drawn={drawn === version ? 'true' : 'false'}>
      <figure className="card ov-figure" aria-labelledby="ov-volume-title">
        <h2 id="ov-volume-title">{t('volume.title')}</h2>
        <figcaption className="muted small">{t('volume.caption')}</figcaption>
        <div className="ov-legend" aria-hidden="true">
          <span><i className="ov-swatch ov-swatch-payments" /> {t('kind.payment')}</span>
          <span><i className="ov-swatch ov-swatch-payouts" /> {t('kind.payout')}</span>
        </div>
        <VolumeBars days={days} axisWidth={countAxisWidth} names={names} title={t('volume.title')} />
        <table className="sr-only">
          <caption>{t('volume.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('column.day')}</th>
              <th scope="col">{t('kind.payment')}</th>
              <th scope="col">{t('kind.payout')}</th>
              <th scope="col">{t('volume.failed')}</th>
            </tr>
          </thead>
          <tbody>
            {data.days.map((day, i) => (
              <tr key={day.start}>
                <th scope="row">{days[i]!.label}</th>
                <td>{formatCount(day.payments.count)} · {amountsText(day.payments.amounts, currency)}</td>
                <td>{formatCount(day.payouts.count)} · {amountsText(day.payouts.amounts, currency)}</td>
                <td>{formatCount(day.failed)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figure>

      <figure className="card ov-figure" aria-labelledby="ov-failures-title">
        <h2 id="ov-failures-title">{t('failures.title')}</h2>
        <figcaption className="muted small">{t('failures.caption')}</figcaption>
        {failures.length === 0 ? (
          <p className="ov-empty">{t('failures.none')}</p>
        ) : (
          <>
            <FailureBars rows={failures} axisWidth={reasonAxisWidth} weekName={t('period.week')} title={t('failures.title')} />
            <table className="table ov-table ov-failures">
              <thead>
                <tr>
                  <th scope="col">{t('column.reason')}</th>
                  <th scope="col" className="num">{t('period.today')}</th>
                  <th scope="col" className="num">{t('period.week')}</th>
                  <th scope="col" className="num">{t('column.amount')}</th>
                </tr>
              </thead>
              <tbody>
                {failures.map((row) => (
                  <tr key={row.label}>
                    <td>
                      <span className="code ov-reason-code">{row.label}</span> {row.sentence}
                    </td>
                    <td className="num">{formatCount(row.today)}</td>
                    <td className="num">{formatCount(row.week)}</td>
                    <td className="num">{amountsText(row.amounts, currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </figure>
    </div>
  );
}
