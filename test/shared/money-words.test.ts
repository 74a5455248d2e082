/** Main's English sentences say money grouped and counts with real plurals (issue 37 item 7: "750000 XAF", "approval(s)"). */
import { describe, expect, it } from 'vitest';
import { approvalFailure } from '../../electron/console/handlers/approvals';
import { ApprovalRefusal } from '../../electron/console/storage/approvals-port';
import { englishCount, englishMoney } from '../../shared/money';

describe('money and counts in main’s English', () => {
  it('groups an amount by its currency’s minor unit', () => {
    expect(englishMoney(750_000, 'XAF')).toBe('750,000 XAF');
    expect(englishMoney(123_450, 'EUR')).toBe('1,234.50 EUR');
    expect(englishMoney(2_280_000)).toBe('2,280,000');
    expect(englishCount(1, 'approval', 'approvals')).toBe('1 approval');
    expect(englishCount(1_200, 'row', 'rows')).toBe('1,200 rows');
  });

  it('a payout or batch held for approval is said with grouped figures and plurals', () => {
    const payout = approvalFailure(new ApprovalRefusal('APPROVAL_REQUIRED', 'raw', { subject: 'payout', environment: 'sandbox', amount: 750_000, rows: 1, approvals: 1, approverRole: 'finance', currency: 'XAF' }))!;
    expect(payout.message).toBe('This payout of 750,000 XAF needs 1 approval by finance before it is sent: ask for approval first. Nothing was sent.');
    const batch = approvalFailure(new ApprovalRefusal('APPROVAL_REQUIRED', 'raw', { subject: 'batch', environment: 'sandbox', amount: 2_280_000, rows: 12, approvals: 2, approverRole: 'admin', currency: 'XAF' }))!;
    expect(batch.message).toBe('This batch (12 rows, total 2,280,000 XAF) needs 2 approvals by an admin before it is sent: ask for approval first. Nothing was sent.');
    expect(`${payout.message} ${batch.message}`).not.toMatch(/\(s\)|\d{4,}/);
  });
});
