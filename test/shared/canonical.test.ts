/**
 * The one canonical-string rule (spec 5.3, issue 15 item 8): the client signs and the engine
 * verifies with the same function, and they agree on the methods the spec does not name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../electron/client/sign';
import { authenticate } from '../../packages/sandbox/src/auth/auth';
import { canonicalHead, payloadFor, payloadSourceFor } from '../../shared/contract';
import { canonicalText } from '../helpers/canonical-text';
import { startTestEngine, type TestEngine } from '../engine/helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

describe('payloadSourceFor', () => {
  it.each([
    ['GET', 'query'],
    ['get', 'query'],
    ['HEAD', 'query'],
    ['DELETE', 'query'],
    ['delete', 'query'],
    ['POST', 'body'],
    ['PATCH', 'body'],
    ['PUT', 'body'],
  ] as const)('%s signs the %s', (method, source) => {
    expect(payloadSourceFor(method)).toBe(source);
  });

  it('gives the raw query or the raw body, and an empty payload when there is none', () => {
    expect(payloadFor('DELETE', 'a=1&b=2', '{"ignored":true}')).toBe('a=1&b=2');
    expect(payloadFor('PATCH', 'a=1', '{"x":1}')).toBe('{"x":1}');
    expect(payloadFor('POST', 'a=1', undefined)).toBe('');
    expect(payloadFor('GET', '', undefined)).toBe('');
  });

  it('builds {publicKey}.{timestamp}.{METHOD}.{path}.{payload}', () => {
    expect(canonicalText({ publicKey: 'pk_sandbox_payment_x', timestamp: '1763719200', method: 'get', path: '/v1/payments/TE_1', payload: 'identifier_type=external_id' })).toBe(
      'pk_sandbox_payment_x.1763719200.GET./v1/payments/TE_1.identifier_type=external_id',
    );
    expect(canonicalHead({ publicKey: 'pk', timestamp: '1', method: 'post', path: '/p' }, { methodAsSent: true })).toBe('pk.1.post./p.');
  });
});

describe('the client and the engine agree', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine();
  });
  afterAll(async () => {
    await t.stop();
  });

  it.each(['GET', 'DELETE', 'POST', 'PATCH'])('a %s the client signs is verified by the engine', (method) => {
    const key = t.engine.api.applications()[0]!.keys.find((candidate) => candidate.environment === 'sandbox' && candidate.type === 'payment')!;
    const body = method === 'GET' || method === 'DELETE' ? undefined : '{"amount":5000}';
    const signed = buildSignedRequest({
      profile: { baseUrl: t.engine.api.url, environment: 'sandbox', paymentPublicKey: key.publicKey, payoutPublicKey: key.publicKey },
      publicKey: key.publicKey,
      secretKey: key.secretKey,
      method,
      path: '/v1/payments/TE_1',
      query: 'identifier_type=external_id',
      body,
      timestampSeconds: t.engine.clock.wallSeconds(),
    });
    const headers = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]));
    const request = { headers, method, path: '/v1/payments/TE_1', query: 'identifier_type=external_id', body: signed.body, remoteAddress: '127.0.0.1', requiredKeyType: 'payment' as const };
    expect(authenticate(engineInternals(t.engine).db, t.engine.clock.wallSeconds(), request, 'SVC').publicKey).toBe(key.publicKey);
    // A DELETE carrying a body still signs its query: the body is not part of what is signed.
    if (method === 'DELETE') {
      expect(authenticate(engineInternals(t.engine).db, t.engine.clock.wallSeconds(), { ...request, body: Buffer.from('{"x":1}') }, 'SVC').publicKey).toBe(key.publicKey);
    }
  });
});
