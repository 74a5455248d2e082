/**
 * Hostile input to the control API (with the token): random bodies, query strings and path ids
 * never produce a 500 or a non-envelope answer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';

let engine: EngineHandle;
beforeAll(async () => {
  engine = await startEngine({ db: ':memory:', port: 0, settleMs: 0 });
});
afterAll(async () => {
  await engine.stop();
});

const ROUTES: [string, string][] = [
  ['POST', '/applications'],
  ['PATCH', '/applications/{id}'],
  ['POST', '/applications/{id}/keys'],
  ['PATCH', '/keys/{id}'],
  ['POST', '/keys/{id}/rotate'],
  ['GET', '/applications/{id}/wallets/{id}'],
  ['POST', '/applications/{id}/wallets/sandbox/top-up'],
  ['POST', '/applications/{id}/wallets/{id}/withdraw'],
  ['POST', '/transactions/{id}/settle'],
  ['POST', '/transactions/{id}/outcome'],
  ['POST', '/clock/advance'],
  ['PUT', '/settle-ms'],
  ['PUT', '/rate-limit'],
  ['PUT', '/maintenance'],
  ['PUT', '/applications/{id}/webhook'],
  ['POST', '/applications/{id}/webhook/rotate-secret'],
  ['GET', '/deliveries'],
  ['GET', '/deliveries/{id}'],
  ['POST', '/deliveries/{id}/redeliver'],
];

const ids = fc.oneof(fc.constant('app_paydesk_demo'), fc.constant('pk_sandbox_payment_paydeskdemo01'), fc.constant('sandbox'), fc.string({ minLength: 1, maxLength: 30 }));
const bodies = fc.oneof(
  fc.constant(undefined),
  fc.json().map((text) => text),
  fc.string({ maxLength: 50 }),
  fc.record({ seconds: fc.anything(), perMinute: fc.anything(), enabled: fc.anything(), url: fc.anything(), amount: fc.anything(), reason: fc.anything(), status: fc.anything(), name: fc.anything() }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
);

describe('control API under hostile input', () => {
  it('answers every request with an envelope and never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), ids, ids, bodies, fc.string({ maxLength: 20 }), async ([method, template], first, second, body, query) => {
        let used = 0;
        const path = template.replace(/\{id\}/g, () => encodeURIComponent((used++ === 0 ? first : second)));
        const response = await fetch(`${engine.api.url}/_sandbox${path}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`, {
          method,
          headers: { authorization: `Bearer ${engine.control.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: method === 'GET' ? undefined : body,
        });
        const text = await response.text();
        expect(response.status, `${method} ${path} ${String(body)} -> ${text}`).toBeLessThan(500);
        const envelope = JSON.parse(text) as { success: boolean; message: string; code?: string };
        expect(typeof envelope.success).toBe('boolean');
        expect(typeof envelope.message).toBe('string');
        if (!envelope.success) expect(envelope.code).toMatch(/^[A-Z_]+$/);
      }),
      { numRuns: 300 },
    );
    // Whatever was thrown at it, the engine still works.
    engine.control.setMaintenance(false);
    expect(engine.api.applications().some((app) => app.id === 'app_paydesk_demo')).toBe(true);
  });
});
