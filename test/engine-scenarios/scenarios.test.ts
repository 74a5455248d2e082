/**
 * Scenarios per transaction, through the control API over loopback HTTP against the real engine
 * and the real client: final status and failed code, time in processing, a provider that never
 * reports (processing until Verify), keyed by phone number or external id, kinds, uses, precise
 * 422s, 409 on overlap, removal, the seed file, and a restart on the same database file.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSeed, DEFAULT_SEED_INPUT, startEngine } from '../../packages/sandbox/src/engine';
import type { Scenario } from '../../shared/contract';
import { control, data } from '../engine-control/control';
import { clientFor, ok, paymentBody, startTestEngine, tempDir, waitForStatus, type TestEngine } from '../engine/helpers';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ settleMs: 0 });
});
afterAll(async () => {
  await t.stop();
});

async function addScenario(body: Record<string, unknown>): Promise<Scenario> {
  const answer = await control<Scenario>(t.engine, 'POST', '/scenarios', body);
  expect(answer.status).toBe(201);
  return data(answer);
}

describe('scenarios per transaction', () => {
  it('a phone number scenario sets the final status and failed code, for payments and payouts', async () => {
    const scenario = await addScenario({ phone_number: '+237677000101', status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' });
    expect(scenario).toMatchObject({ match: { field: 'phone_number', value: '+237677000101' }, kind: null, status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS', notify: true, webhooks: 'deliver', uses_left: null, applied: 0 });
    expect(scenario.id).toMatch(/^scn_/);
    const payment = ok(await t.client.createPayment(paymentBody({ phone_number: '+237677000101' })));
    const payout = ok(await t.client.initiatePayout(paymentBody({ phone_number: '+237677000101' })));
    for (const id of [payment.transaction_id, payout.transaction_id]) {
      await waitForStatus(t.engine, id, 'failed');
      expect(t.engine.control.transaction(id)).toMatchObject({ status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' });
    }
    const listed = data(await control<{ scenarios: Scenario[] }>(t.engine, 'GET', '/scenarios')).scenarios.find((s) => s.id === scenario.id);
    expect(listed?.applied).toBe(2);
    expect(data(await control(t.engine, 'DELETE', `/scenarios/${scenario.id}`))).toEqual({ removed: scenario.id });
    // Removed: the number completes again (the table's default for an unlisted number).
    const after = ok(await t.client.createPayment(paymentBody({ phone_number: '+237677000101' })));
    await waitForStatus(t.engine, after.transaction_id, 'completed');
  });

  it('an external id scenario wins over the phone number, and over the outcome table', async () => {
    await addScenario({ phone_number: '+237650000001', status: 'cancelled' });
    await addScenario({ external_id: 'scenario-order-7', status: 'failed', failed_code: 'PAYER_NOT_FOUND' });
    const byId = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000001', external_id: 'scenario-order-7' })));
    const byPhone = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000001' })));
    await waitForStatus(t.engine, byId.transaction_id, 'failed');
    await waitForStatus(t.engine, byPhone.transaction_id, 'cancelled');
    expect(t.engine.control.transaction(byId.transaction_id)?.failed_code).toBe('PAYER_NOT_FOUND');
    expect(data(await control(t.engine, 'DELETE', '/scenarios'))).toEqual({ removed: 2 });
  });

  it('stays processing for processing_seconds of engine time, then settles', async () => {
    await addScenario({ phone_number: '+237677000102', status: 'completed', processing_seconds: 90 });
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237677000102' })));
    t.engine.clock.advance(89);
    expect(t.engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    // Verify asks the provider, which has not decided yet either.
    expect(ok(await t.client.verifyPayment(created.transaction_id)).status).toBe('processing');
    t.engine.clock.advance(2);
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    await control(t.engine, 'DELETE', '/scenarios');
  });

  it('notify false: the provider never reports, the transaction stays processing until Verify', async () => {
    await addScenario({ phone_number: '+237677000103', status: 'failed', failed_code: 'EXPIRED', notify: false });
    const created = ok(await t.client.initiatePayout(paymentBody({ phone_number: '+237677000103' })));
    t.engine.clock.advance(3600);
    expect(t.engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    const verified = ok(await t.client.verifyPayout(created.transaction_id));
    expect(verified).toMatchObject({ status: 'failed', failed_code: 'EXPIRED' });
    await control(t.engine, 'DELETE', '/scenarios');
  });

  it('kind limits it to payments or payouts; uses counts down and removes it', async () => {
    const scenario = await addScenario({ phone_number: '+237677000104', kind: 'payout', status: 'cancelled', uses: 2 });
    const payment = ok(await t.client.createPayment(paymentBody({ phone_number: '+237677000104' })));
    await waitForStatus(t.engine, payment.transaction_id, 'completed');
    const first = ok(await t.client.initiatePayout(paymentBody({ phone_number: '+237677000104' })));
    await waitForStatus(t.engine, first.transaction_id, 'cancelled');
    expect(data(await control<Scenario>(t.engine, 'GET', `/scenarios/${scenario.id}`)).uses_left).toBe(1);
    const second = ok(await t.client.initiatePayout(paymentBody({ phone_number: '+237677000104' })));
    await waitForStatus(t.engine, second.transaction_id, 'cancelled');
    expect((await control(t.engine, 'GET', `/scenarios/${scenario.id}`)).status).toBe(404);
    const third = ok(await t.client.initiatePayout(paymentBody({ phone_number: '+237677000104' })));
    await waitForStatus(t.engine, third.transaction_id, 'completed');
  });

  it('refuses bad bodies with a 422 naming each field', async () => {
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ status: 'completed' }, { phone_number: ['give exactly one of phone_number and external_id'] }],
      [{ phone_number: '+237677000105', external_id: 'x-1', status: 'completed' }, { external_id: ['give exactly one of phone_number and external_id'] }],
      [{ phone_number: '0677', status: 'completed' }, { phone_number: ['must be + followed by the country code and number, digits only (e.g. +237650000001)'] }],
      [{ phone_number: '+237677000105', status: 'failed' }, { failed_code: ['is required when status is failed'] }],
      [{ phone_number: '+237677000105', status: 'completed', failed_code: 'EXPIRED' }, { failed_code: ['is only allowed when status is failed'] }],
      [{ phone_number: '+237677000105', status: 'failed', failed_code: 'NOPE' }, { failed_code: ['must be one of the API failed codes'] }],
      [{ phone_number: '+237677000105', status: 'pending' }, { status: ['must be completed, failed or cancelled'] }],
      [{ phone_number: '+237677000105', status: 'completed', processing_seconds: -1 }, { processing_seconds: ['must be 0 or more'] }],
      [{ phone_number: '+237677000105', status: 'completed', webhooks: 'late' }, { webhook_delay_seconds: ['is required when webhooks is late'] }],
      [{ phone_number: '+237677000105', status: 'completed', webhook_delay_seconds: 5 }, { webhook_delay_seconds: ['is only allowed when webhooks is late'] }],
      [{ phone_number: '+237677000105', status: 'completed', webhooks: 'twice' }, { webhooks: ['must be one of deliver, drop, duplicate, out_of_order, late'] }],
      [{ phone_number: '+237677000105', status: 'completed', uses: 0 }, { uses: ['must be at least 1'] }],
      [{ phone_number: '+237677000105', status: 'completed', colour: 'red' }, { colour: ['is not a known field'] }],
    ];
    for (const [body, errors] of cases) {
      const answer = await control(t.engine, 'POST', '/scenarios', body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.errors, JSON.stringify(body)).toEqual(errors);
    }
    expect(data(await control<{ scenarios: Scenario[] }>(t.engine, 'GET', '/scenarios')).scenarios).toEqual([]);
  });

  it('refuses a second scenario for the same transactions (409), allows the other kind', async () => {
    const first = await addScenario({ external_id: 'dup-key-1', kind: 'payment', status: 'completed' });
    const clash = await control(t.engine, 'POST', '/scenarios', { external_id: 'dup-key-1', status: 'cancelled' });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toContain(first.id);
    await addScenario({ external_id: 'dup-key-1', kind: 'payout', status: 'cancelled' });
    expect((await control(t.engine, 'DELETE', '/scenarios/scn_missing')).status).toBe(404);
    await control(t.engine, 'DELETE', '/scenarios');
  });
});

describe('scenarios from the seed file and across a restart', () => {
  it('a seed scenario applies, and scenarios added later are kept across a restart', async () => {
    const { dir } = tempDir();
    const file = join(dir, 'sandbox.db');
    const seed = parseSeed({ ...DEFAULT_SEED_INPUT, scenarios: [{ phone_number: '+237677000201', status: 'failed', failed_code: 'SERVICE_UNAVAILABLE' }] });
    const first = await startEngine({ db: file, port: 0, settleMs: 0, seed });
    const added = data(await control<Scenario>(first, 'POST', '/scenarios', { external_id: 'kept-1', status: 'cancelled', processing_seconds: 30 }));
    await first.stop();
    const second = await startEngine({ db: file, port: 0, settleMs: 0, seed });
    try {
      const listed = data(await control<{ scenarios: Scenario[] }>(second, 'GET', '/scenarios')).scenarios;
      expect(listed.map((s) => [s.match.value, s.status])).toEqual([['+237677000201', 'failed'], ['kept-1', 'cancelled']]);
      expect(listed[1]).toEqual(added);
      const client = clientFor(second);
      const seeded = ok(await client.createPayment(paymentBody({ phone_number: '+237677000201' })));
      await waitForStatus(second, seeded.transaction_id, 'failed');
      expect(second.control.transaction(seeded.transaction_id)?.failed_code).toBe('SERVICE_UNAVAILABLE');
      await client.close();
    } finally {
      await second.stop();
    }
  });

  it('a seed with two scenarios for the same transactions is refused, naming the entry', () => {
    expect(() =>
      parseSeed({ ...DEFAULT_SEED_INPUT, scenarios: [{ phone_number: '+237677000301', status: 'completed' }, { phone_number: '+237677000301', kind: 'payout', status: 'cancelled' }] }),
    ).toThrow(/scenarios\.1: steers the same transactions as an earlier scenario/);
    expect(() => parseSeed({ ...DEFAULT_SEED_INPUT, scenarios: [{ phone_number: '+237677000301', status: 'failed' }] })).toThrow(/scenarios\.0\.failed_code: is required when status is failed/);
  });
});
