/**
 * The Overview's bar charts, drawn as plain SVG (issue 28 target 2: recharts took ~100 ms of a
 * page load's answer → drawn and 358 kB of script for two bar charts). Colours are the theme's
 * tokens (overview.css); axes are as wide as their labels (overviewFormat). Each bar column is
 * a keyboard stop of the chart (arrow keys move, as in a list) whose label a screen reader reads
 * and whose tooltip shows on focus as on hover; the tables beside the charts hold the same numbers.
 */
import { useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { formatCount } from '../format/money';
import { fitLabel } from './overviewFormat';

/**
 * Five integer ticks from 0, a "nice" step apart (1, 2, 2.5 or 5 × 10ⁿ), the last one at or above
 * `max`: the scale recharts drew (0–4 when nothing happened yet), so the charts read as before.
 */
export function countTicks(max: number, steps = 4): number[] {
  const raw = Math.max(1, max) / steps;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 && power >= 10 ? 2.5 : fraction <= 5 ? 5 : 10;
  const step = Math.max(1, Math.ceil(nice * power));
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

/** Width of the chart's box, measured before the first paint and on resize (the SVG is drawn in px, not scaled). */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    // jsdom has no layout: a plausible width so the component tests still see the bars.
    const measure = () => setWidth(Math.floor(box.clientWidth) || 480);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** The focused/hovered column, moved by arrow keys among the chart's columns (one tab stop per chart). */
function useActive(count: number) {
  const [active, setActive] = useState<number | null>(null);
  const [stop, setStop] = useState(0);
  const onKeyDown = (event: KeyboardEvent<SVGSVGElement>) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -count, End: count };
    if (event.key === 'Escape') return setActive(null);
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = Math.min(count - 1, Math.max(0, stop + move));
    setStop(next);
    setActive(next);
    event.currentTarget.querySelectorAll<SVGElement>('.ov-hit')[next]?.focus();
  };
  const column = (index: number) => ({
    tabIndex: index === stop ? 0 : -1,
    onFocus: () => { setStop(index); setActive(index); },
    onBlur: () => setActive(null),
    onMouseEnter: () => setActive(index),
    onMouseLeave: () => setActive(null),
  });
  return { active, onKeyDown, column };
}

/** A bar as a path (a rectangle), so the theme's CSS `fill` applies as to any SVG shape. */
const bar = (x: number, y: number, w: number, h: number) => `M${x},${y}h${w}v${h}h${-w}Z`;

type Tip = { x: number; y: number; title: string; lines: [string, string][] };

/** The tooltip, beside the column (on its right in the left half, on its left in the right half); name and value in columns, no colon to translate. */
function Tooltip({ tip, width }: { tip: Tip | null; width: number }) {
  if (!tip) return null;
  const side = tip.x < width / 2 ? { left: tip.x + 12 } : { right: width - tip.x + 12 };
  return (
    <div className="ov-tip" aria-hidden="true" style={{ top: tip.y, ...side }}>
      <div className="ov-tip-title">{tip.title}</div>
      {tip.lines.map(([name, value]) => (
        <div key={name} className="ov-tip-line"><span>{name}</span><strong>{value}</strong></div>
      ))}
    </div>
  );
}

const TICK = 12;
const X_AXIS = 24;

export interface VolumeDay { label: string; tick: string; payments: number; payouts: number }

/** Payments and payouts per day, stacked, one column a day. */
export function VolumeBars({ days, axisWidth, names, title }: { days: VolumeDay[]; axisWidth: number; names: { payments: string; payouts: string }; title: string }) {
  const [ref, width] = useWidth();
  const { active, onKeyDown, column } = useActive(days.length);
  const height = 240;
  const top = 8;
  const plotH = height - top - X_AXIS;
  const plotW = Math.max(0, width - axisWidth - 8);
  const ticks = countTicks(Math.max(0, ...days.map((day) => day.payments + day.payouts)));
  const max = ticks[ticks.length - 1]!;
  const y = (value: number) => top + plotH - (value / max) * plotH;
  const band = plotW / Math.max(1, days.length);
  const barW = band * 0.8;
  const lines = (day: VolumeDay): [string, string][] => [[names.payments, formatCount(day.payments)], [names.payouts, formatCount(day.payouts)]];
  const tip = active !== null && days[active] ? { x: axisWidth + band * (active + 0.5), y: top, title: days[active].label, lines: lines(days[active]) } : null;
  let content: ReactNode = null;
  if (width > 0) {
    content = (
      <>
        <g aria-hidden="true" className="ov-axis">
          {ticks.map((value) => (
            <g key={value}>
              <line className="ov-grid-line" x1={axisWidth} x2={axisWidth + plotW} y1={y(value)} y2={y(value)} />
              <text x={axisWidth - 6} y={y(value)} dy="0.32em" textAnchor="end" fontSize={TICK}>{formatCount(value)}</text>
            </g>
          ))}
          <line className="ov-axis-line" x1={axisWidth} x2={axisWidth + plotW} y1={top + plotH} y2={top + plotH} />
          {days.map((day, i) => (
            <text key={i} x={axisWidth + band * (i + 0.5)} y={top + plotH + 16} textAnchor="middle" fontSize={TICK}>{day.tick}</text>
          ))}
        </g>
        {days.map((day, i) => {
          const x = axisWidth + band * i;
          const paymentsTop = y(day.payments);
          const payoutsTop = y(day.payments + day.payouts);
          const label = [day.label, ...lines(day).map(([name, value]) => `${name} ${value}`)].join(', ');
          return (
            <g key={i}>
              {active === i && <rect className="ov-cursor" x={x} y={top} width={band} height={plotH} />}
              {day.payments > 0 && <path className="ov-bar-payments" d={bar(x + (band - barW) / 2, paymentsTop, barW, top + plotH - paymentsTop)} />}
              {day.payouts > 0 && <path className="ov-bar-payouts" d={bar(x + (band - barW) / 2, payoutsTop, barW, paymentsTop - payoutsTop)} />}
              <rect className="ov-hit" x={x} y={top} width={band} height={plotH} role="img" aria-label={label} {...column(i)} />
            </g>
          );
        })}
      </>
    );
  }
  return (
    <ChartFrame chartRef={ref} width={width} height={height} title={title} onKeyDown={onKeyDown} tip={tip}>
      {content}
    </ChartFrame>
  );
}

/** A chart's box: the SVG (one tab stop, arrows move between columns) and its tooltip. */
function ChartFrame({ chartRef, width, height, title, onKeyDown, tip, children }: { chartRef: React.RefObject<HTMLDivElement | null>; width: number; height: number; title: string; onKeyDown: (event: KeyboardEvent<SVGSVGElement>) => void; tip: Tip | null; children: ReactNode }) {
  return (
    <div className="ov-chart" ref={chartRef}>
      <svg className="ov-svg" width={width} height={height} role="group" aria-label={title} onKeyDown={onKeyDown}>{children}</svg>
      <Tooltip tip={tip} width={width} />
    </div>
  );
}

export interface FailureBar { label: string; week: number }

/** Failures of the week by reason, one horizontal bar a reason. */
export function FailureBars({ rows, axisWidth, weekName, title }: { rows: FailureBar[]; axisWidth: number; weekName: string; title: string }) {
  const [ref, width] = useWidth();
  const { active, onKeyDown, column } = useActive(rows.length);
  const height = Math.max(120, 36 * rows.length + 30);
  const plotH = height - X_AXIS;
  const plotW = Math.max(0, width - axisWidth - 16);
  const ticks = countTicks(Math.max(0, ...rows.map((row) => row.week)));
  const max = ticks[ticks.length - 1]!;
  const x = (value: number) => axisWidth + (value / max) * plotW;
  const band = plotH / Math.max(1, rows.length);
  const barH = Math.min(20, band * 0.8);
  const tip = active !== null && rows[active]
    ? { x: x(rows[active].week), y: band * active, title: rows[active].label, lines: [[weekName, formatCount(rows[active].week)]] as [string, string][] }
    : null;
  let content: ReactNode = null;
  if (width > 0) {
    content = (
      <>
        <g aria-hidden="true" className="ov-axis">
          {ticks.map((value) => (
            <g key={value}>
              <line className="ov-grid-line" x1={x(value)} x2={x(value)} y1={0} y2={plotH} />
              <text x={x(value)} y={plotH + 16} textAnchor="middle" fontSize={TICK}>{formatCount(value)}</text>
            </g>
          ))}
          <line className="ov-axis-line" x1={axisWidth} x2={axisWidth} y1={0} y2={plotH} />
          <line className="ov-axis-line" x1={axisWidth} x2={axisWidth + plotW} y1={plotH} y2={plotH} />
          {rows.map((row, i) => (
            <text key={i} x={axisWidth - 6} y={band * (i + 0.5)} dy="0.32em" textAnchor="end" fontSize={TICK}>{fitLabel(row.label, axisWidth)}</text>
          ))}
        </g>
        {rows.map((row, i) => (
          <g key={i}>
            {active === i && <rect className="ov-cursor" x={axisWidth} y={band * i} width={plotW} height={band} />}
            <path className="ov-bar-failed" d={bar(axisWidth, band * i + (band - barH) / 2, x(row.week) - axisWidth, barH)} />
            <rect className="ov-hit" x={axisWidth} y={band * i} width={plotW} height={band} role="img" aria-label={`${row.label}, ${weekName} ${formatCount(row.week)}`} {...column(i)} />
          </g>
        ))}
      </>
    );
  }
  return (
    <ChartFrame chartRef={ref} width={width} height={height} title={title} onKeyDown={onKeyDown} tip={tip}>
      {content}
    </ChartFrame>
  );
}
