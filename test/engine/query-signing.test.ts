/**
 * A GET query with percent-escapes is signed as sent (issue 23): the client signs the raw query
 * string exactly as it puts it on the request line (shared/contract/canonical.ts, packages/sandbox/src/signing.ts)
 * and the engine verifies over the raw query it received, never a decoded one. A signature made
 * over the decoded query is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedRequest, publicKeyFor } from '../../electron/client';
import { sendRaw, type RawSigner } from '../helpers/raw-request';
import { signerFor, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;
let signer: RawSigner;
const ESCAPED = 'identifier_type=external_id&q=a%20b&x=%2F&y=%C3%BC';
const DECODED = decodeURIComponent(ESCAPED);

beforeAll(async () => {
  t = await startTestEngine({ rateLimit: { perKeyPerMinute: 0 } });
  const at = Date.now();
  signer = { ...signerFor(t.engine), now: () => at };
});
afterAll(async () => {
  await t.stop();
});

async function signed(query: string) {
  const publicKey = publicKeyFor(signer.profile, 'payment');
  return buildSignedRequest({
    profile: signer.profile,
    publicKey,
    secretKey: await signer.secretFor(publicKey),
    method: 'GET',
    path: '/v1/payments/order-none',
    query,
    body: undefined,
    timestampSeconds: Math.floor(signer.now() / 1000),
  });
}

describe('a GET query with percent-escapes', () => {
  it('is put on the request line and into the canonical string byte for byte', async () => {
    const request = await signed(ESCAPED);
    expect(request.target).toBe(`/v1/payments/order-none?${ESCAPED}`);
    const publicKey = publicKeyFor(signer.profile, 'payment');
    expect(request.canonical).toBe(`${publicKey}.${Math.floor(signer.now() / 1000)}.GET./v1/payments/order-none.${ESCAPED}`);
  });

  it('is verified by the engine over the raw query it received: the signed request passes authentication', async () => {
    const result = await sendRaw(signer, { method: 'GET', path: '/v1/payments/order-none', query: ESCAPED, keyType: 'payment' });
    // Past authentication: the engine looked the payment up (and has none).
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 404, code: 'PAYMENT_NOT_FOUND' });
  });

  it('refuses a signature made over the decoded query', async () => {
    expect(DECODED).not.toBe(ESCAPED);
    const overDecoded = (await signed(DECODED)).headers['X-SVC-Signature']!;
    const result = await sendRaw(signer, { method: 'GET', path: '/v1/payments/order-none', query: ESCAPED, keyType: 'payment', headers: { 'X-SVC-Signature': overDecoded } });
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 401, code: 'INVALID_DIGITAL_SIGNATURE' });
  });
});
