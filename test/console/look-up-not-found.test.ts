/**
 * A single payout's Look up (issue 35 item 5): only a definite 404 that carries the service's
 * PAYOUT_NOT_FOUND makes an outcome-unknown payout "not found" (and so sendable again). A look-up
 * that times out, is reset, meets a 5xx, an unreadable answer, a 404 without that code (a proxy's
 * HTML page, a gateway's own envelope) or the code on another status leaves the payout outcome
 * unknown, refuses a resend, and the timeline keeps the failed look-up
 * (docs/decisions/look-up-not-found-only-404.md). The real engine behind a gate proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFail, expectOk, paymentRequest } from './helpers';
import { SERVER_ERROR, type GateAction } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;

beforeAll(async () => {
  s = await startProxiedConsole('paydesk-look-up-404-');
});
afterAll(async () => {
  await s?.close();
});

/** A single payout whose POST met a 500 the engine never saw: outcome unknown, and in truth not created. */
async function unknownPayout(externalId: string): Promise<string> {
  const { runtime } = s;
  const request = paymentRequest({ payment_method: 'momo_cm', amount: 2500, external_id: externalId });
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  s.proxy.decide = (seen) => (seen.method === 'POST' ? SERVER_ERROR({ forward: false }) : 'forward');
  const failure = expectFail(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }), 'OUTCOME_UNKNOWN');
  expect(s.engineCount(externalId)).toBe(0);
  return failure.journalId!;
}

const notFoundBody = (code: string) => ({ success: false, message: 'Not found', code, errors: [] });

const failedLookUps: [string, GateAction, string, { type: string; httpStatus?: number; code?: string }][] = [
  ['times out', 'hang', 'NOT_SENT', { type: 'transport_failure' }],
  ['is reset', 'reset', 'NOT_SENT', { type: 'transport_failure' }],
  ['meets a 503', { ...(SERVER_ERROR({ forward: false }) as object), status: 503 } as GateAction, 'INTERNAL_SERVER_ERROR', { type: 'api_error', httpStatus: 503 }],
  [
    "meets a proxy's HTML 404",
    { status: 404, body: '<html><body><h1>404 Not Found</h1>nginx</body></html>', headers: { 'content-type': 'text/html' } },
    'BAD_RESPONSE',
    { type: 'api_error', httpStatus: 404, code: 'BAD_RESPONSE' },
  ],
  ["meets a gateway's 404 envelope without the service's code", { status: 404, body: notFoundBody('NOT_FOUND') }, 'NOT_FOUND', { type: 'api_error', httpStatus: 404, code: 'NOT_FOUND' }],
  ['meets PAYOUT_NOT_FOUND on a 500', { status: 500, body: notFoundBody('PAYOUT_NOT_FOUND') }, 'PAYOUT_NOT_FOUND', { type: 'api_error', httpStatus: 500, code: 'PAYOUT_NOT_FOUND' }],
  ['meets an unreadable 200', { status: 200, body: '{"success": tru' }, 'BAD_RESPONSE', { type: 'api_error', httpStatus: 200, code: 'BAD_RESPONSE' }],
];

describe("a single payout's Look up that gets no definite answer", () => {
  for (const [what, lookUp, code, event] of failedLookUps) {
    it(`${what}: the payout stays outcome unknown, a resend is refused, and the timeline records the failed look-up`, async () => {
      const { runtime } = s;
      const externalId = `PAYOUT-look-up-${what.replace(/\W+/g, '-')}`;
      const journalId = await unknownPayout(externalId);
      s.proxy.decide = (seen) => (seen.method === 'GET' && seen.path.includes(externalId) ? lookUp : 'forward');
      expectFail(await runtime.handlers['transactions:resolveUnknown']({ journalId }), code);
      const after = expectOk(await runtime.handlers['transactions:get']({ journalId }));
      expect(after.transaction.state).toBe('outcome_unknown');
      expect(runtime.journal.prepare('SELECT resolution FROM entries WHERE id = ?').get(journalId)).toEqual({ resolution: null });
      expect(after.timeline[0]).toMatchObject(event);
      expectFail(await runtime.handlers['transactions:resend']({ journalId }), 'CONFLICT');
      expect(s.postsFor(externalId)).toBe(1);

      // Once the service itself answers its 404, the payout is not found and may be sent again, once.
      s.proxy.decide = () => 'forward';
      const resolved = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId }));
      expect(resolved.exists).toBe(false);
      expectOk(await runtime.handlers['transactions:resend']({ journalId }));
      expect(s.postsFor(externalId)).toBe(2);
      expect(s.engineCount(externalId)).toBe(1);
    });
  }
});
