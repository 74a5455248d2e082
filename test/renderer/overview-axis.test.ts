/**
 * The Overview charts' axes are as wide as their longest label (issue 16, item 11): a long failure
 * code or a French name shows whole instead of being cut at a fixed 170 px; only a label too long
 * for any axis is shortened with "…" (the tooltip and the table beside the chart show it whole).
 */
import { describe, expect, it } from 'vitest';
import { fitLabel, labelAxisWidth, labelWidth } from '../../renderer/src/screens/overviewFormat';

describe('Overview chart axis labels', () => {
  it('widens the axis with the longest label', () => {
    const short = labelAxisWidth(['No code']);
    const medium = labelAxisWidth(['No code', 'PAYER_NOT_FOUND']);
    const long = labelAxisWidth(['No code', 'PAYER_NOT_FOUND', 'PROVIDER_INTERNAL_PROCESSING_ERROR']);
    expect(short).toBeLessThan(medium);
    expect(medium).toBeLessThan(long);
    // The old fixed width could not hold the longest code the service sends.
    expect(labelWidth('PROVIDER_INTERNAL_PROCESSING_ERROR')).toBeGreaterThan(170);
  });

  it('shows every label the service sends whole, in English and French', () => {
    const labels = ['PROVIDER_INTERNAL_PROCESSING_ERROR', 'TRANASACTION_CANCELLED', 'CONFIRMATION_REQUIRED', 'Sans code', 'No code'];
    const width = labelAxisWidth(labels, { min: 80 });
    for (const label of labels) expect(fitLabel(label, width)).toBe(label);
  });

  it('gives a large count room on the volume axis', () => {
    const width = labelAxisWidth(['1,234,567']);
    expect(width).toBeGreaterThan(40);
    expect(fitLabel('1,234,567', width)).toBe('1,234,567');
  });

  it('shortens only a label longer than any axis can hold, with an ellipsis', () => {
    const label = 'A_FAILURE_CODE_FROM_A_FUTURE_VERSION_OF_THE_SERVICE_THAT_IS_VERY_LONG';
    const width = labelAxisWidth([label]);
    expect(width).toBe(300);
    const shown = fitLabel(label, width);
    expect(shown.endsWith('…')).toBe(true);
    expect(label.startsWith(shown.slice(0, -1))).toBe(true);
    expect(labelWidth(shown)).toBeLessThanOrEqual(width - 12);
  });
});
