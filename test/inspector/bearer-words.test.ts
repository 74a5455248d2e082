/**
 * A public key pasted with "Bearer " before it (issue 37 item 7): the engine records the key as
 * sent, and the inspector's words name the prefix instead of calling the key unknown. Real HTTP
 * against a real engine; the sentence is the renderer's own, in English and French.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLanguage, i18n } from '../../renderer/src/i18n';
import { diagnosisSentence } from '../../renderer/src/screens/inspectorWords';
import type { AuthDiagnosis } from '../../shared/contract';
import { startTestEngine, type TestEngine } from '../engine/helpers';
import { SANDBOX_PAYMENT, sendRaw } from './helpers';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t.stop();
  await applyLanguage('en');
});

describe('a key sent with a Bearer prefix', () => {
  it('is refused as an unknown key and named as a prefixed one, in both languages', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, publicKey: `Bearer ${SANDBOX_PAYMENT.publicKey}` });
    expect(code).toBe('INVALID_API_KEY');
    expect(record.diagnosis).toMatchObject({ check: 'api-key', reason: 'unknown' });
    const diagnosis = record.diagnosis as AuthDiagnosis;
    await applyLanguage('en');
    const english = diagnosisSentence(i18n.getFixedT(null, 'inspector'), diagnosis, record);
    expect(english).toContain('starts with “Bearer”');
    expect(english).toContain(`Send “${SANDBOX_PAYMENT.publicKey}” by itself.`);
    expect(english).not.toMatch(/has no key/);
    await applyLanguage('fr');
    const french = diagnosisSentence(i18n.getFixedT(null, 'inspector'), diagnosis, record);
    expect(french).toContain('commence par « Bearer »');
    expect(french).toContain(`Envoyez « ${SANDBOX_PAYMENT.publicKey} » seule.`);
  });

  it('a key that is merely unknown still says so', async () => {
    const { record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, publicKey: 'pk_sandbox_payment_nosuchkey' });
    await applyLanguage('en');
    expect(diagnosisSentence(i18n.getFixedT(null, 'inspector'), record.diagnosis as AuthDiagnosis, record)).toBe('This sandbox has no key “pk_sandbox_payment_nosuchkey”. Copy the public key from the Engine card above.');
  });
});
