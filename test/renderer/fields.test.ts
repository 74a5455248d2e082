/**
 * Field errors in French: every message the shared schemas, main and the amount parser produce is
 * mapped to a catalogue key, so a French reader never sees an English field error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CHANNEL_INPUTS, profileInputSchema } from '../../shared/api';
import { toFieldErrors, transactionRequestSchema } from '../../shared/contract';
import { parseAmount } from '../../renderer/src/format/money';
import { applyLanguage } from '../../renderer/src/i18n';
import { fieldMessageKey, translateFieldError } from '../../renderer/src/messages/fields';

/** Every message a parse of `value` against `schema` gives. */
function messagesOf(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : Object.values(toFieldErrors(parsed.error.issues)).flat();
}

const long = 'x'.repeat(300);
const transactionMessages = [
  ...messagesOf(transactionRequestSchema, {}),
  ...messagesOf(transactionRequestSchema, { payment_method: '', amount: 1.5, phone_number: '650', customer: { first_name: ' ', last_name: long, email: 'nope' }, external_id: 'bad id!', description: long, extra: 1 }),
  ...messagesOf(transactionRequestSchema, { payment_method: 1, amount: -1, phone_number: 1, customer: { first_name: 1, last_name: 1, email: 1 }, external_id: '', description: 1, metadata: { big: long.repeat(40) } }),
  ...messagesOf(transactionRequestSchema, { payment_method: 'x', amount: 10 ** 13, phone_number: '+237650000001', customer: { first_name: 'a', last_name: 'b', email: 'a@b.cm' }, external_id: long }),
  ...messagesOf(transactionRequestSchema, { amount: 'ten' }),
];
const profileMessages = [
  ...messagesOf(profileInputSchema, {}),
  ...messagesOf(profileInputSchema, { name: ' ', baseUrl: 'ftp://x', environment: 'prod', headerWord: 'a b', paymentPublicKey: long, payoutPublicKey: 1 }),
];
const channelMessages = [
  ...messagesOf(CHANNEL_INPUTS['sandbox:topUp'], { environment: 'sandbox', amount: 0, reason: ' ' }),
  ...messagesOf(CHANNEL_INPUTS['secrets:set'], { profileId: 'p', keyType: 'payment', secret: 'short' }),
  ...messagesOf(CHANNEL_INPUTS['transactions:export'], { query: { minAmount: -1, from: 'yesterday' }, language: 'de' }),
];
const amountMessages = [parseAmount('', 'XAF'), parseAmount('12.5', 'XAF'), parseAmount('1.234', 'USD'), parseAmount('9'.repeat(20), 'XAF')].flatMap((r) => ('error' in r ? [r.error] : []));
const localMessages = ['has 4 cells where the header has 3', 'the file is UTF-16 LE text, not UTF-8: save it as "CSV UTF-8 (comma delimited)" and import it again', 'every value needs a key', 'key "order" is used twice', 'does not match the payout amount', 'is required for a live payout', 'does not match the amount', 'must differ from the payment key (key pairs are per type)'];

describe('field errors', () => {
  afterAll(async () => {
    await applyLanguage('en');
  });

  it('collects a real set of messages from the schemas (the test would prove nothing without)', () => {
    expect(new Set(transactionMessages).size).toBeGreaterThan(10);
    expect(profileMessages.length).toBeGreaterThan(4);
    expect(amountMessages).toHaveLength(4);
  });

  it('knows every message the schemas, main and the amount parser give', () => {
    const all = [...new Set([...transactionMessages, ...profileMessages, ...channelMessages, ...amountMessages, ...localMessages])];
    expect(all.filter((message) => fieldMessageKey(message) === null)).toEqual([]);
  });

  it('shows them in French with their values, and as they came in English', async () => {
    await applyLanguage('fr');
    expect(translateFieldError('is required')).toBe('est obligatoire');
    expect(translateFieldError('must be at most 100 characters')).toBe('doit faire au plus 100 caractères');
    expect(translateFieldError('must be a whole number of XAF (it has no smaller unit)')).toBe('doit être un nombre entier de FCFA (pas de sous-unité)');
    expect(translateFieldError('key "order" is used twice')).toBe('la clé «\u00a0order\u00a0» est utilisée deux fois');
    expect(translateFieldError('something nobody listed')).toBe('n’est pas valide');
    const english = /\b(must|is|be|the|and|only|number|required|field)\b/;
    expect(transactionMessages.map(translateFieldError).filter((text) => english.test(text))).toEqual([]);
    await applyLanguage('en');
    expect(translateFieldError('must be at most 100 characters')).toBe('must be at most 100 characters');
    expect(translateFieldError('something nobody listed')).toBe('something nobody listed');
  });
});
