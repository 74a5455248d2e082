/**
 * A batch action refused with its reason (CONFLICT + `reason`, shared/api/refusals.ts) is said in
 * the reader's language, the batch state word translated; a reason the catalogue lacks is a typecheck
 * error, and every reason main can send has its sentence in both languages.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BATCH_REFUSALS } from '../../shared/api';
import { resources } from '../../shared/i18n';
import { applyLanguage } from '../../renderer/src/i18n';
import { describeFailure } from '../../renderer/src/messages/errors';

afterAll(async () => {
  await applyLanguage('en');
});

const retriedAlready = { code: 'CONFLICT', message: 'The failed rows of batch B-1 were retried already in batch “october (retry 1).csv”, and those retries were sent.', reason: { key: 'retriedAlready' as const, params: { name: 'october (retry 1).csv' } } };

describe('batch refusals by reason', () => {
  it('has a sentence for every reason in English and French', () => {
    for (const language of ['en', 'fr'] as const) {
      const refusal = resources[language].batch.refusal as Record<string, string>;
      expect(BATCH_REFUSALS.filter((key) => !refusal[key] && !refusal[`${key}_other`])).toEqual([]);
    }
  });

  it('says the reason in the reader\'s language, with the state in words', async () => {
    await applyLanguage('en');
    expect(describeFailure(retriedAlready).title).toBe('The failed rows of this batch were retried already in the batch “october (retry 1).csv”, and those retries were sent.');
    await applyLanguage('fr');
    expect(describeFailure(retriedAlready).title).toBe('Les lignes en échec de ce lot ont déjà été relancées dans le lot « october (retry 1).csv », et ces relances ont été envoyées.');
    expect(describeFailure({ code: 'CONFLICT', message: 'Batch B-1 is sending: …', reason: { key: 'notStopped', params: { state: 'sending' } } }).title).toBe(
      'Relancez les lignes en échec une fois ce lot arrêté (il est : Envoi en cours).',
    );
    expect(describeFailure({ code: 'CONFLICT', message: '2 row(s)…', reason: { key: 'unknownRows', params: { count: 2 } } }).title).toMatch(/^2 lignes ont un résultat inconnu/);
    // Without a reason, CONFLICT keeps its code's sentence.
    expect(describeFailure({ code: 'CONFLICT', message: 'x' }).title).toBe(resources.fr.errors.CONFLICT.title);
  });
});
