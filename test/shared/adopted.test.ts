/**
 * What an adopted request asked against the transaction the service holds under its external id
 * (shared/api/adopted.ts): the account number is masked, so only the digits it shows are compared.
 */
import { describe, expect, it } from 'vitest';
import { adoptedDifference, phoneMatchesAccount } from '../../shared/api';

const found = (account_number: string, amount = 1000, currency = 'XAF') => ({ account_number, amount, currency });
const asked = (phone_number: string, amount = 1000) => ({ phone_number, amount });

describe('phoneMatchesAccount', () => {
  it('matches the digits the mask shows, at their places, and the length', () => {
    expect(phoneMatchesAccount('+237650000001', '+2376****0001')).toBe(true);
    expect(phoneMatchesAccount('+237651230001', '+2376****0001')).toBe(true); // the mask hides the middle
    expect(phoneMatchesAccount('+237650000002', '+2376****0001')).toBe(false);
    expect(phoneMatchesAccount('+237750000001', '+2376****0001')).toBe(false);
    expect(phoneMatchesAccount('+2376500000001', '+2376****0001')).toBe(false);
    expect(phoneMatchesAccount('+23760001', '+2376****0001')).toBe(false); // shorter: the mask's stars would take anything
    expect(phoneMatchesAccount('+237 650 00 00 01', '+237650000001')).toBe(true);
  });
});

describe('adoptedDifference', () => {
  it('is null when the transaction is what was asked, or a side is unknown', () => {
    expect(adoptedDifference(asked('+237650000001'), 'XAF', found('+2376****0001'))).toBeNull();
    expect(adoptedDifference(null, 'XAF', found('+2376****0001'))).toBeNull();
    expect(adoptedDifference(asked('+237650000001'), 'XAF', null)).toBeNull();
    // A transaction stored without its account number (an older or partial answer): the rest is compared.
    expect(adoptedDifference(asked('+237650000001'), 'XAF', { amount: 1000, currency: 'XAF' } as never)).toBeNull();
    expect(adoptedDifference(asked('+237650000001', 5), 'XAF', { amount: 1000, currency: 'XAF' } as never)?.differs).toEqual(['amount']);
  });

  it('names the recipient, the amount, or the currency (as the amount) that differ', () => {
    expect(adoptedDifference(asked('+237650000002'), 'XAF', found('+2376****0001'))?.differs).toEqual(['recipient']);
    expect(adoptedDifference(asked('+237650000001', 999), 'XAF', found('+2376****0001'))?.differs).toEqual(['amount']);
    expect(adoptedDifference(asked('+237650000001'), 'XAF', found('+2376****0001', 1000, 'EUR'))).toEqual({
      asked: { phoneNumber: '+237650000001', amount: 1000, currency: 'XAF' },
      found: { accountNumber: '+2376****0001', amount: 1000, currency: 'EUR' },
      differs: ['amount'],
    });
  });
});
