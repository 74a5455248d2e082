/**
 * The engine compares the whole signature (issue 23): a signature that differs from the right one
 * in its last hex digit, in its first, that is cut short or that has more after the right 64
 * digits is refused with 401 INVALID_DIGITAL_SIGNATURE, on a GET and on a POST. The right one,
 * sent with the same timestamp, is accepted (so each refusal is the signature's alone).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedRequest, publicKeyFor } from '../../electron/client';
import { sendRaw, type RawRequest, type RawSigner } from '../helpers/raw-request';
import { paymentBody, signerFor, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;
let signer: RawSigner;

beforeAll(async () => {
  t = await startTestEngine();
  // One timestamp for the signature computed here and the request sent: the same canonical string.
  const at = Date.now();
  signer = { ...signerFor(t.engine), now: () => at };
});
afterAll(async () => {
  await t.stop();
});

/** The signature the client would send for `raw`. */
async function rightSignature(raw: RawRequest): Promise<string> {
  const publicKey = publicKeyFor(signer.profile, raw.keyType);
  const signed = buildSignedRequest({
    profile: signer.profile,
    publicKey,
    secretKey: await signer.secretFor(publicKey),
    method: raw.method,
    path: raw.path,
    query: raw.query ?? '',
    body: raw.body === undefined ? undefined : JSON.stringify(raw.body),
    timestampSeconds: Math.floor(signer.now() / 1000),
  });
  return signed.headers['X-SVC-Signature']!;
}

/** Other hex digit at `index`. */
function flip(signature: string, index: number): string {
  const digit = signature[index] === '0' ? '1' : '0';
  return `${signature.slice(0, index)}${digit}${signature.slice(index + 1)}`;
}

function variants(signature: string): [string, string][] {
  return [
    ['last hex digit changed', flip(signature, 63)],
    ['first hex digit changed', flip(signature, 0)],
    ['one digit short', signature.slice(0, 63)],
    ['half of it', signature.slice(0, 32)],
    ['one digit more', `${signature}0`],
    ['twice over', signature + signature],
  ];
}

describe('the engine compares the whole signature', () => {
  const requests: [string, () => RawRequest][] = [
    ['GET', () => ({ method: 'GET', path: '/v1/balance', keyType: 'payout' })],
    ['POST', () => ({ method: 'POST', path: '/v1/payments', keyType: 'payment', body: paymentBody({ external_id: `SIG-${randomUUID().slice(0, 8)}` }) })],
  ];
  for (const [method, make] of requests) {
    it(`refuses a ${method} whose signature is not exactly the right one, and accepts the right one`, async () => {
      const raw = make();
      const signature = await rightSignature(raw);
      expect(signature).toMatch(/^[0-9a-f]{64}$/);
      for (const [what, wrong] of variants(signature)) {
        const result = await sendRaw(signer, { ...raw, headers: { 'X-SVC-Signature': wrong } });
        expect(result, what).toMatchObject({ kind: 'api-error', httpStatus: 401, code: 'INVALID_DIGITAL_SIGNATURE' });
      }
      // Nothing was created by the refused POSTs: the right signature creates it now, once.
      expect((await sendRaw(signer, { ...raw, headers: { 'X-SVC-Signature': signature } })).kind).toBe('success');
    });
  }
});
