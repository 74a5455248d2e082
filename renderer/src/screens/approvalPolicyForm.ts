/**
 * The approval policy editor's tiers as typed (issue 25 item 1): each tier's "from" amount in the
 * currency's units as people write money ("100 000", "1,234.50"), turned into the integer in the
 * smallest unit the workspace stores. The database takes any set of distinct amounts; the form
 * asks for them in ascending order so the table reads as the policy works (from this amount up to
 * the next tier), and says which field is wrong instead of reordering what the admin typed.
 */
import type { ApproverRole } from '../../../shared/api/approvals';
import { formatNumber, minorDigits } from '../format/money';

export interface DraftTier {
  /** The "from" amount as typed, in the currency's units. */
  from: string;
  approvals: 0 | 1 | 2;
  approverRole: ApproverRole;
}

export interface PolicyTier {
  minAmount: number;
  approvals: 0 | 1 | 2;
  approverRole: ApproverRole;
}

/** Why a tier's amount is refused (words in approvals:policy.error.*). */
export type TierError = 'required' | 'negative' | 'notWhole' | 'tooManyDecimals' | 'tooLarge' | 'notAscending' | 'duplicate';

/** The most tiers one environment and currency may hold (the IPC schema's limit). */
export const MAX_TIERS = 10;

/** The smallest-unit integer for a typed amount, or why not. Zero is a valid "from" (every amount). */
export function parseTierAmount(text: string, currency: string): { amount: number } | { error: TierError } {
  const cleaned = text.replace(/[\s,\u00a0\u202f']/g, '');
  if (cleaned === '') return { error: 'required' };
  if (/^-/.test(cleaned)) return { error: 'negative' };
  const digits = minorDigits(currency);
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return { error: digits === 0 ? 'notWhole' : 'tooManyDecimals' };
  const [whole = '0', fraction = ''] = cleaned.split('.');
  if (fraction.length > digits) return { error: digits === 0 ? 'notWhole' : 'tooManyDecimals' };
  const amount = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (!Number.isSafeInteger(amount)) return { error: 'tooLarge' };
  return { amount };
}

/** A stored tier as the form shows it: the amount in the currency's units, without grouping (typed back as is). */
export function draftOf(tier: PolicyTier, currency: string): DraftTier {
  return { from: formatNumber(tier.minAmount, currency, 'en').replace(/,/g, ''), approvals: tier.approvals, approverRole: tier.approverRole };
}

/**
 * The tiers to save, or each refused field by row. Every row's amount must parse, and each must be
 * strictly above the one before it (ascending, no two tiers from the same amount: they would overlap).
 */
export function validateTiers(drafts: readonly DraftTier[], currency: string): { ok: true; tiers: PolicyTier[] } | { ok: false; errors: (TierError | null)[] } {
  const errors: (TierError | null)[] = drafts.map(() => null);
  const tiers: PolicyTier[] = [];
  let previous: number | null = null;
  drafts.forEach((draft, index) => {
    const parsed = parseTierAmount(draft.from, currency);
    if ('error' in parsed) {
      errors[index] = parsed.error;
      return;
    }
    if (previous !== null && parsed.amount === previous) errors[index] = 'duplicate';
    else if (previous !== null && parsed.amount < previous) errors[index] = 'notAscending';
    previous = previous === null ? parsed.amount : Math.max(previous, parsed.amount);
    tiers.push({ minAmount: parsed.amount, approvals: draft.approvals, approverRole: draft.approverRole });
  });
  return errors.some((error) => error !== null) ? { ok: false, errors } : { ok: true, tiers };
}
