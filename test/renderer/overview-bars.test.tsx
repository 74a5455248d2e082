/**
 * The Overview's hand-drawn bar charts (issue 28 target 2, in place of recharts): integer ticks
 * up to a round top, one bar per non-zero value, and each column readable by keyboard and screen
 * reader (its label, the tooltip on focus, arrow keys moving between columns).
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FailureBars, VolumeBars, countTicks } from '../../renderer/src/screens/OverviewBars';

afterEach(() => cleanup());

const names = { payments: 'Payments', payouts: 'Payouts' };
const days = [
  { label: 'Mon 23 Nov', tick: 'Mon 23', payments: 4, payouts: 1 },
  { label: 'Tue 24 Nov', tick: 'Tue 24', payments: 0, payouts: 0 },
  { label: 'Wed 25 Nov', tick: 'Wed 25', payments: 1_200, payouts: 0 },
];

describe('Overview bar charts', () => {
  it('puts five integer ticks from 0 to a round top that holds the largest value', () => {
    expect(countTicks(0)).toEqual([0, 1, 2, 3, 4]);
    expect(countTicks(5)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(1_201)).toEqual([0, 500, 1_000, 1_500, 2_000]);
    expect(countTicks(95)).toEqual([0, 25, 50, 75, 100]);
    for (const max of [1, 3, 7, 19, 99, 1_000, 31_463]) {
      const ticks = countTicks(max);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.every(Number.isInteger)).toBe(true);
      expect(ticks).toHaveLength(5);
    }
  });

  it('draws a bar per non-zero value and the day labels on the axis', () => {
    const { container } = render(<VolumeBars days={days} axisWidth={48} names={names} title="Volume" />);
    expect(container.querySelectorAll('path.ov-bar-payments')).toHaveLength(2);
    expect(container.querySelectorAll('path.ov-bar-payouts')).toHaveLength(1);
    expect(screen.getByText('Tue 24')).toBeTruthy();
    expect(screen.getByText('1,500')).toBeTruthy();
  });

  it('reads each column by keyboard: one tab stop, arrows move, the tooltip follows the focus', () => {
    render(<VolumeBars days={days} axisWidth={48} names={names} title="Volume" />);
    const columns = screen.getAllByRole('img');
    expect(columns.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Mon 23 Nov, Payments 4, Payouts 1',
      'Tue 24 Nov, Payments 0, Payouts 0',
      'Wed 25 Nov, Payments 1,200, Payouts 0',
    ]);
    expect(columns.map((c) => c.getAttribute('tabindex'))).toEqual(['0', '-1', '-1']);
    act(() => columns[0]!.focus());
    expect(document.querySelector('.ov-tip')?.textContent).toBe('Mon 23 NovPayments4Payouts1');
    fireEvent.keyDown(columns[0]!, { key: 'End' });
    expect(document.activeElement).toBe(columns[2]);
    expect(document.querySelector('.ov-tip')?.textContent).toContain('Wed 25 Nov');
    fireEvent.keyDown(columns[2]!, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(columns[1]);
    expect(columns.map((c) => c.getAttribute('tabindex'))).toEqual(['-1', '0', '-1']);
    fireEvent.keyDown(columns[1]!, { key: 'Escape' });
    expect(document.querySelector('.ov-tip')).toBeNull();
  });

  it('shows a failure reason whole in its label and tooltip even when the axis cuts it', () => {
    const code = 'A_FAILURE_CODE_FROM_A_FUTURE_VERSION_OF_THE_SERVICE_THAT_IS_VERY_LONG';
    const { container } = render(<FailureBars rows={[{ label: code, week: 3 }, { label: 'No code', week: 1 }]} axisWidth={120} weekName="Week" title="Failures" />);
    expect(container.querySelectorAll('path.ov-bar-failed')).toHaveLength(2);
    const [first] = screen.getAllByRole('img');
    expect(first!.getAttribute('aria-label')).toBe(`${code}, Week 3`);
    expect(screen.queryByText(code)).toBeNull();
    fireEvent.mouseEnter(first!);
    expect(document.querySelector('.ov-tip')?.textContent).toBe(`${code}Week3`);
  });
});
