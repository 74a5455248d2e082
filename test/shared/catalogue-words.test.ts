/**
 * The catalogues' words (issue 37 item 7): French keeps Verify and Review apart ("Vérifier" asks
 * the service for a transaction's status; reading a payout or a batch over before sending it is
 * "Relire"), and no sentence counts with "(s)": plurals are i18next's _one/_other keys.
 */
import { describe, expect, it } from 'vitest';
import { english } from '../../shared/i18n/english';
import { french } from '../../shared/i18n/french';

/** Every sentence of a catalogue with its key path. */
function sentences(tree: unknown, path: string[] = []): [string, string][] {
  if (typeof tree === 'string') return [[path.join('.'), tree]];
  if (tree && typeof tree === 'object') return Object.entries(tree).flatMap(([key, value]) => sentences(value, [...path, key]));
  return [];
}

const frenchAt = new Map(sentences(french));

describe('French words for Verify and Review', () => {
  it('never says "vérifier" where English says review', () => {
    const reviews = sentences(english).filter(([, text]) => /\breview/i.test(text));
    expect(reviews.length).toBeGreaterThan(3);
    const mixed = reviews.filter(([key]) => /vérifi/i.test(frenchAt.get(key) ?? '')).map(([key]) => `${key}: ${frenchAt.get(key)}`);
    expect(mixed).toEqual([]);
    for (const [key] of reviews) expect(frenchAt.get(key), key).toMatch(/reli|relu|relis/i);
  });

  it('says "Vérifier" for the Verify action', () => {
    expect(french.transaction.verify.button).toBe('Vérifier');
    expect(french.overview.stuck.verify).toBe('Vérifier');
    expect(french.payout.review).toBe('Relire le transfert');
    expect(french.batch.confirm.open).toBe('Relire et envoyer');
  });
});

describe('counts in words', () => {
  it('no sentence outside the approval screens says "(s)" for a plural, in English or French', () => {
    // The approval screens' own namespace is worded by their own work (issue 37 item 1).
    const outside = (catalogue: object) => sentences(catalogue).filter(([key]) => !key.startsWith('approvals.'));
    const plurals = [...outside(english), ...outside(french)].filter(([, text]) => /\w\((s|e|es)\)/.test(text.replace(/https?\(s\)|http\(s\)/g, '')));
    expect(plurals).toEqual([]);
  });
});
