/**
 * The French walk's English finder (test/e2e/englishWords.ts) on its own: ids stay out of the
 * words it matches, whatever letters they happen to hold, and English words are still found.
 * A batch row's generated external id once read "be" as English and failed the walk by chance.
 */
import { describe, expect, it } from 'vitest';
import { findEnglish } from '../e2e/englishWords';

describe('the English finder of the French walk', () => {
  it('never reads a word inside an id that mixes letters and digits', () => {
    expect(findEnglish('B-mwx8pbdw7be872-2 · B-0be9-14 · sal-2026-11-018-be')).toEqual([]);
  });

  it('still finds an English word beside ids and figures', () => {
    expect(findEnglish('La ligne 3 ne peut pas be envoyée\nPlease B-mwx8pbdw7be872-2').map((hit) => hit.word)).toEqual(['be', 'please']);
  });
});
