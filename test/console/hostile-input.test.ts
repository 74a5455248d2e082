/**
 * Every channel of the map, walked with hostile input: wrong types, huge strings, unknown fields,
 * prototype tricks. Each answer is `{ ok: false, code: INVALID_INPUT }`, nothing is thrown, and
 * nothing is stored (journal, settings file, keychain).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCredentials } from '@napi-rs/keyring';
import { CHANNELS, type Channel } from '../../shared/api';
import { KEYCHAIN_SERVICE } from '../../electron/console/vault';
import { expectOk, paymentRequest, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

/** A valid input per channel: the hostile ones are made from it field by field. */
const VALID: Record<Channel, Record<string, unknown>> = {
  'app:info': {},
  'preferences:set': { language: 'fr' },
  'profiles:list': {},
  'profiles:save': {
    name: 'Hostile',
    baseUrl: 'https://api.example.com',
    environment: 'sandbox',
    headerWord: 'SVC',
    paymentPublicKey: 'pk_sandbox_payment_h1',
    payoutPublicKey: 'pk_sandbox_payout_h1',
  },
  'profiles:delete': { id: 'some-profile' },
  'profiles:activate': { id: 'some-profile' },
  'secrets:set': { profileId: 'some-profile', keyType: 'payment', secret: 'sk_sandbox_payment_hostile_1' },
  'secrets:has': { profileId: 'some-profile', keyType: 'payment' },
  'secrets:delete': { profileId: 'some-profile', keyType: 'payment' },
  'methods:list': {},
  'balance:get': {},
  'payments:create': { request: paymentRequest() },
  'payouts:prepare': { request: paymentRequest(), typedAmount: 5000 },
  'payouts:initiate': { request: paymentRequest(), confirmationToken: 'token' },
  'transactions:lookup': { id: 'TE_1', by: 'transaction_id', kind: 'payment' },
  'transactions:get': { journalId: 'j1' },
  'transactions:verify': { journalId: 'j1' },
  'transactions:resolveUnknown': { journalId: 'j1' },
  'transactions:resend': { journalId: 'j1' },
  'transactions:search': { query: { text: 'x' }, offset: 0, limit: 10 },
  'transactions:export': { query: { status: 'completed' } },
  'sandbox:status': {},
  'sandbox:outcomes': {},
  'sandbox:wallet': {},
  'sandbox:topUp': { environment: 'sandbox', amount: 100, reason: 'r' },
  'sandbox:deliveries': { cursor: 'dlv1.abc', limit: 20 },
  'sandbox:redeliver': { deliveryId: 'd1' },
  'sandbox:setWebhookUrl': { url: 'http://127.0.0.1:9/hook' },
  'sandbox:settle': { transactionId: 'TE_1' },
  'sandbox:advanceClock': { seconds: 10 },
  'sandbox:resetClock': {},
  'sandbox:setMaintenance': { on: true },
  'sandbox:setRateLimit': { perMinute: 60 },
  'sandbox:setChaos': { drop: 0.5, late: 0.25, lateSeconds: 30, duplicate: 0, outOfOrder: 0 },
  'sandbox:clearChaos': {},
  'sandbox:variants': {},
  'sandbox:setVariants': { enabled: ['created-201', 'reset-after-create'], resetEvery: 3 },
  'sandbox:revealSecret': { which: 'adminToken' },
  'sandbox:scenarios': {},
  'sandbox:addScenario': { phone_number: '+237677000901', status: 'completed' },
  'sandbox:removeScenario': { scenarioId: 'scn_x' },
  'sandbox:recording': { format: 'har' },
  'batches:template': { language: 'fr' },
  'batches:import': { fileName: 'payouts.csv', text: 'phone_number,amount\n+237650000001,5000\n', paymentMethod: 'momo_cm' },
  'batches:updateRow': { batchId: 'b1', rowNumber: 2, values: { amount: '5000' } },
  'batches:dropRows': { batchId: 'b1', rowNumbers: [3, 4] },
  'batches:invalidRows': { batchId: 'b1', language: 'en' },
  'batches:preview': { batchId: 'b1' },
  'batches:rehearse': { batchId: 'b1' },
  'batches:prepare': { batchId: 'b1', typedTotal: 5050, acceptDuplicateFile: true },
  'batches:start': { batchId: 'b1', confirmationToken: 'token', concurrency: 4 },
  'batches:pause': { batchId: 'b1' },
  'batches:resume': { batchId: 'b1' },
  'batches:cancel': { batchId: 'b1' },
  'batches:join': { batchId: 'b1' },
  'batches:get': { batchId: 'b1' },
  'batches:rows': { batchId: 'b1', filter: 'failed', offset: 0, limit: 100 },
  'batches:list': {},
  'batches:retryFailed': { batchId: 'b1' },
  'batches:sendRemaining': { batchId: 'b1' },
  'batches:report': { batchId: 'b1', language: 'en' },
  'batches:renewSentIds': { batchId: 'b1' },
  'sandbox:requests': { status: '4xx', key: 'pk_sandbox_payment_h1', cursor: '10', limit: 20 },
  'sandbox:signRequest': { method: 'POST', path: '/v1/payments', query: '', body: '{}', keyType: 'payment' },
  'reconcile:begin': { fileName: 'orders.csv' },
  'reconcile:append': { uploadId: 'u1', text: 'external_id,kind,amount\n' },
  'reconcile:import': { uploadId: 'u1', processingMinutes: 30, period: { from: '2026-11-01T00:00:00Z', to: '2026-11-30T00:00:00Z' }, utcOffsetMinutes: -60 },
  'reconcile:list': {},
  'reconcile:get': { id: 'r1' },
  'reconcile:rows': { id: 'r1', category: 'matched', offset: 0, limit: 10 },
  'reconcile:cancel': { id: 'r1' },
  'reconcile:resume': { id: 'r1' },
  'reconcile:verify': { id: 'r1' },
  'reconcile:export': { id: 'r1', category: 'matched', language: 'fr' },
  'overview:get': { dayBoundaries: Array.from({ length: 8 }, (_, i) => new Date(Date.UTC(2026, 10, 17 + i, -1)).toISOString()) },
  'approvals:status': {},
  'approvals:list': { scope: 'forMe' },
  'approvals:get': { id: 1 },
  'approvals:askPayout': { request: paymentRequest(), remark: 'invoice 42' },
  'approvals:askBatch': { batchId: 'b1', remark: 'march suppliers' },
  'approvals:approve': { id: 1, digest: 'a'.repeat(64), remark: 'checked' },
  'approvals:reject': { id: 1, remark: 'wrong supplier' },
  'approvals:withdraw': { id: 1 },
  'approvals:send': { id: 1 },
  'approvals:sendBatch': { id: 1 },
  'approvals:about': { environment: 'sandbox', externalId: 'INV-42' },
  'approvals:policy': {},
  'approvals:unsent': { text: 'INV-42', from: '2026-11-01T00:00:00Z', minAmount: 1000 },
  'audit:list': { filter: { actor: 'fatou', action: 'approve', from: '2026-11-01T00:00:00Z', to: '2026-11-30T00:00:00Z', subject: 'INV-42' }, before: 10, limit: 50 },
  'audit:export': { filter: { action: 'send' }, language: 'fr' },
  'people:list': {},
  'people:add': { login: 'nadia', role: 'finance', displayName: 'Nadia Ekwueme', password: 'a long enough password' },
  'people:resetPassword': { login: 'nadia', password: 'a long enough password' },
  'people:disable': { login: 'nadia' },
  'people:setRole': { login: 'nadia', role: 'support', member: true },
  'people:askPolicy': { environment: 'sandbox', currency: 'XAF', tiers: [{ minAmount: 100000, approvals: 1, approverRole: 'finance' }] },
  'people:approveChange': { id: 1, remark: 'checked' },
  'people:rejectChange': { id: 1 },
  'workspace:status': {},
  'workspace:test': { connection: { host: 'localhost', port: 5432, database: 'paydesk_team', user: 'finance_demo', tls: 'off' }, password: 'a-password' },
  'workspace:use': { connection: { host: 'localhost', port: 5432, database: 'paydesk_team', user: 'finance_demo', tls: 'off' } },
  'workspace:useDesktop': {},
  'workspace:retry': {},
  'teamProfiles:save': { name: 'Team', baseUrl: 'https://api.example.com', environment: 'sandbox', headerWord: 'SVC' },
  'teamProfiles:delete': { id: 'some-profile' },
  'teamProfiles:publish': { id: 'some-profile' },
  'teamProfiles:setKeys': { profileId: 'some-profile', paymentPublicKey: 'pk_sandbox_payment_h1', payoutPublicKey: 'pk_sandbox_payout_h1' },
  'teamSandbox:control': { method: 'POST', path: '/clock/advance', body: '{"seconds":60}' },
};

const HUGE = 'x'.repeat(1_000_000);
/** Values that no field of the map accepts. */
const WRONG_VALUES: unknown[] = [HUGE, -0.5, [1, 2], { nested: { deeper: true } }, null, Number.NaN];

function hostileInputs(channel: Channel): { label: string; input: unknown }[] {
  const valid = VALID[channel];
  const inputs: { label: string; input: unknown }[] = [
    { label: 'null', input: null },
    { label: 'a number', input: 42 },
    { label: 'a string', input: 'payments:create' },
    { label: 'an array', input: [valid] },
    { label: 'an unknown field', input: { ...valid, isAdmin: true } },
    { label: 'a huge unknown field', input: { ...valid, [HUGE.slice(0, 10_000)]: HUGE } },
    { label: 'a __proto__ field', input: JSON.parse(`{"__proto__": {"polluted": true}${Object.keys(valid).length ? ',' : ''}${JSON.stringify(valid).slice(1)}`) },
  ];
  for (const key of Object.keys(valid)) {
    for (const value of WRONG_VALUES) inputs.push({ label: `${key} = ${String(value).slice(0, 20)}`, input: { ...valid, [key]: value } });
  }
  // Nested objects get the same treatment one level down.
  for (const [key, nested] of Object.entries(valid)) {
    if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
      inputs.push({ label: `${key} with an unknown field`, input: { ...valid, [key]: { ...nested, extra: 1 } } });
      for (const inner of Object.keys(nested)) {
        inputs.push({ label: `${key}.${inner} = huge`, input: { ...valid, [key]: { ...nested, [inner]: HUGE } } });
        inputs.push({ label: `${key}.${inner} = array`, input: { ...valid, [key]: { ...nested, [inner]: [HUGE] } } });
      }
    }
  }
  return inputs;
}

function storedState(): { journal: number; timeline: number; settings: string; keychain: number } {
  const settingsPath = join(runtime.dir, 'settings.json');
  return {
    journal: (runtime.journal.prepare('SELECT COUNT(*) AS n FROM entries').get() as { n: number }).n,
    timeline: (runtime.journal.prepare('SELECT COUNT(*) AS n FROM timeline').get() as { n: number }).n,
    settings: existsSync(settingsPath) ? readFileSync(settingsPath, 'utf8') : '',
    keychain: findCredentials(KEYCHAIN_SERVICE).length,
  };
}

beforeAll(async () => {
  runtime = await startRuntime();
  // Something to hurt: one journal entry and one saved profile.
  expectOk(await runtime.handlers['payments:create']({ request: paymentRequest() }));
  expectOk(await runtime.handlers['profiles:save'](VALID['profiles:save']));
});

afterAll(async () => {
  await runtime?.close();
});

describe('hostile input on every channel', () => {
  it('covers every channel of the map', () => {
    expect(Object.keys(VALID).sort()).toEqual([...CHANNELS].sort());
    expect(Object.keys(runtime.handlers).sort()).toEqual([...CHANNELS].sort());
  });

  it.each(CHANNELS)('%s answers INVALID_INPUT to each hostile input and stores nothing', async (channel) => {
    const before = storedState();
    for (const { label, input } of hostileInputs(channel)) {
      let result: Awaited<ReturnType<(typeof runtime.handlers)[Channel]>>;
      try {
        result = await runtime.handlers[channel](input);
      } catch (error) {
        throw new Error(`${channel} threw on ${label}`, { cause: error });
      }
      expect(result.ok, `${channel} accepted ${label}`).toBe(false);
      if (!result.ok) {
        expect(result.error.code, `${channel} with ${label}: ${result.error.message}`).toBe('INVALID_INPUT');
        expect(result.error.message.length).toBeLessThan(500);
        expect(JSON.stringify(result.error).length, `${channel} echoed a huge input back`).toBeLessThan(20_000);
      }
    }
    expect(storedState()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
