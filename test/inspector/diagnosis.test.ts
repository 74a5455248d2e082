/**
 * Each authentication failure is recorded with the right diagnosis (issue 12), over real HTTP
 * against a real engine; the record arrives through the engine's `request` event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededApplication } from '../../packages/sandbox/src/engine';
import type { SignatureDiagnosis } from '../../shared/contract';
import { control, data } from '../engine-control/control';
import { startTestEngine, type TestEngine } from '../engine/helpers';
import { SANDBOX_PAYMENT, SANDBOX_PAYOUT, sendRaw } from './helpers';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t.stop();
});

const BODY = { payment_method: 'service_demo', amount: 5000, phone_number: '+237650000001', external_id: 'diag-1', description: 'Café / thé' };
const pretty = JSON.stringify(BODY, null, 2);
const compact = JSON.stringify(BODY);

function signatureOf(record: { diagnosis: unknown }): SignatureDiagnosis {
  const diagnosis = record.diagnosis as SignatureDiagnosis;
  expect(diagnosis.check).toBe('signature');
  return diagnosis;
}

describe('diagnoses of authentication failures', () => {
  it('records a correctly signed request with no diagnosis', async () => {
    const { status, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_missing', query: 'identifier_type=transaction_id', ...SANDBOX_PAYMENT });
    expect(status).toBe(404);
    expect(record).toMatchObject({ method: 'GET', path: '/v1/payments/TE_missing', query: 'identifier_type=transaction_id', status: 404, publicKey: SANDBOX_PAYMENT.publicKey, environment: 'sandbox', diagnosis: null });
    expect(record.code).toBe('PAYMENT_NOT_FOUND');
  });

  it('names the missing headers', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, omit: ['X-SVC-Signature', 'X-SVC-Environment'] });
    expect(code).toBe('AUTHENTICATION_HEADERS_REQUIRED');
    expect(record.diagnosis).toEqual({ check: 'headers', missing: ['X-SVC-Signature', 'X-SVC-Environment'] });
  });

  it('shows the timestamp that is not a Unix time in seconds', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, timestamp: '2026-11-23T10:00:00Z' });
    expect(code).toBe('INVALID_TIMESTAMP');
    expect(record.diagnosis).toEqual({ check: 'timestamp', received: '2026-11-23T10:00:00Z' });
  });

  it('gives the clock skew in seconds for an expired timestamp', async () => {
    const sent = t.engine.clock.wallSeconds() - 400;
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, timestamp: String(sent) });
    expect(code).toBe('TIMESTAMP_EXPIRED');
    const diagnosis = record.diagnosis as { check: string; timestamp: number; serverTime: number; skewSeconds: number; toleranceSeconds: number };
    expect(diagnosis).toMatchObject({ check: 'timestamp-window', timestamp: sent, toleranceSeconds: 300 });
    expect(diagnosis.skewSeconds).toBe(sent - diagnosis.serverTime);
    // The engine read its clock after the test did: the skew is 400 s, or 401 if a second ticked over.
    expect([-400, -401]).toContain(diagnosis.skewSeconds);
  });

  it('says the environment header is not sandbox or live', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, environment: 'Sandbox' });
    expect(code).toBe('INVALID_ENVIRONMENT');
    expect(record.diagnosis).toEqual({ check: 'environment', received: 'Sandbox' });
  });

  it('tells an unknown key from a key of the wrong type', async () => {
    const unknown = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', publicKey: 'pk_sandbox_payment_nobody', secret: 'sk_sandbox_payment_nobody_x' });
    expect(unknown.code).toBe('INVALID_API_KEY');
    expect(unknown.record.diagnosis).toEqual({ check: 'api-key', reason: 'unknown', keyType: null, requiredKeyType: 'payment' });
    const wrongType = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYOUT });
    expect(wrongType.code).toBe('INVALID_API_KEY');
    expect(wrongType.record.diagnosis).toEqual({ check: 'api-key', reason: 'wrong-type', keyType: 'payout', requiredKeyType: 'payment' });
  });

  it('says a secret key was sent as the public key, without recording it', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', publicKey: SANDBOX_PAYMENT.secret, secret: SANDBOX_PAYMENT.secret });
    expect(code).toBe('INVALID_API_KEY');
    expect(record.publicKey).toBeNull();
    expect(record.diagnosis).toMatchObject({ check: 'api-key', reason: 'secret-sent' });
    expect(JSON.stringify(record)).not.toContain(SANDBOX_PAYMENT.secret);
  });

  it('names both environments on a key/environment mismatch', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT, environment: 'live' });
    expect(code).toBe('API_KEY_ENV_MISMATCH');
    expect(record.diagnosis).toEqual({ check: 'key-environment', keyEnvironment: 'sandbox', headerEnvironment: 'live' });
  });

  it('finds a GET signed without its query string', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', query: 'identifier_type=external_id', ...SANDBOX_PAYMENT, sign: { payload: '' } });
    expect(code).toBe('INVALID_DIGITAL_SIGNATURE');
    const diagnosis = signatureOf(record);
    expect(diagnosis).toMatchObject({ likelyCause: 'query-excluded', payloadKind: 'query', payloadLength: 'identifier_type=external_id'.length });
    expect(diagnosis.canonical).toMatch(/^pk_sandbox_payment_paydeskdemo01\.\d+\.GET\.\/v1\/payments\/TE_x\.identifier_type=external_id$/);
  });

  it('finds a GET whose query was signed inside the path', async () => {
    const query = 'identifier_type=external_id';
    const { record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', query, ...SANDBOX_PAYMENT, sign: { path: `/v1/payments/TE_x?${query}`, payload: '' } });
    expect(signatureOf(record).likelyCause).toBe('query-included');
  });

  it('finds a body signed compact but sent indented, and gives the length and hash of the bytes signed', async () => {
    const { code, record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: pretty, ...SANDBOX_PAYMENT, sign: { payload: compact } });
    expect(code).toBe('INVALID_DIGITAL_SIGNATURE');
    const diagnosis = signatureOf(record);
    expect(diagnosis).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'compact', payloadKind: 'body', payloadLength: Buffer.byteLength(pretty) });
    const { createHash } = await import('node:crypto');
    expect(diagnosis.payloadSha256).toBe(createHash('sha256').update(pretty).digest('hex'));
    expect(diagnosis.canonical.endsWith(pretty)).toBe(true);
  });

  it("recognises PHP's json_encode (escaped slashes and accents)", async () => {
    const php = compact.replace(/\//g, '\\/').replace(/é/g, '\\u00e9');
    const { record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { payload: php } });
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'php-escaped' });
  });

  it('finds the method signed in lowercase and a signature sent in uppercase hex', async () => {
    const lower = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { method: 'post' } });
    expect(signatureOf(lower.record).likelyCause).toBe('method-case');
    const { computeSignature, canonicalBytes } = await import('@paydesk/sandbox');
    const timestamp = String(t.engine.clock.wallSeconds());
    const right = computeSignature(SANDBOX_PAYMENT.secret, canonicalBytes({ publicKey: SANDBOX_PAYMENT.publicKey, timestamp, method: 'POST', path: '/v1/payments', payload: compact }));
    const upper = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, timestamp, signature: right.toUpperCase() });
    expect(signatureOf(upper.record).likelyCause).toBe('signature-encoding');
  });

  it('names a base64 signature as an encoding mistake, not a wrong secret', async () => {
    const { computeSignature, canonicalBytes } = await import('@paydesk/sandbox');
    const timestamp = String(t.engine.clock.wallSeconds());
    const hex = computeSignature(SANDBOX_PAYMENT.secret, canonicalBytes({ publicKey: SANDBOX_PAYMENT.publicKey, timestamp, method: 'POST', path: '/v1/payments', payload: compact }));
    const base64 = Buffer.from(hex, 'hex').toString('base64');
    const { code, record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, timestamp, signature: base64 });
    expect(code).toBe('INVALID_DIGITAL_SIGNATURE');
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'signature-encoding', bodyVariant: null });
  });

  it('names a newline signed but not sent "trailing-newline", and one sent but not signed "trimmed" (not a re-serialisation)', async () => {
    const signedNewline = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { payload: `${compact}\n` } });
    expect(signatureOf(signedNewline.record)).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'trailing-newline' });
    // A file read with its final newline and sent as is, signed after trimming: compact JSON too, but the newline is the cause.
    const sentNewline = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: `${compact}\n`, ...SANDBOX_PAYMENT, sign: { payload: compact } });
    expect(signatureOf(sentNewline.record)).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'trimmed' });
  });

  it('names a body sent with surrounding spaces but signed trimmed "trimmed"', async () => {
    const { record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: `  ${pretty} \r\n`, ...SANDBOX_PAYMENT, sign: { payload: pretty } });
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'trimmed', payloadLength: Buffer.byteLength(`  ${pretty} \r\n`) });
  });

  it('finds a request signed with the payout secret of the same application', async () => {
    const { record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { secret: SANDBOX_PAYOUT.secret } });
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'other-key-type', otherPublicKey: SANDBOX_PAYOUT.publicKey });
  });

  it("finds a request signed with another application's secret, naming only its public key", async () => {
    const app = data(await control<SeededApplication>(t.engine, 'POST', '/applications', { name: 'Diag Other' }));
    const other = app.keys.find((key) => key.environment === 'sandbox' && key.type === 'payment');
    if (!other) throw new Error('no sandbox payment key');
    const { record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { secret: other.secretKey } });
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'other-key', otherPublicKey: other.publicKey });
    expect(JSON.stringify(record)).not.toContain(other.secretKey);
  });

  it('says unknown when no alternative reproduces the signature', async () => {
    const { record } = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { secret: 'sk_sandbox_payment_typo_in_the_secret' } });
    expect(signatureOf(record)).toMatchObject({ likelyCause: 'unknown', otherPublicKey: null });
  });

  it('names the address and the whitelist when the IP is not allowed', async () => {
    data(await control(t.engine, 'PATCH', `/keys/${SANDBOX_PAYMENT.publicKey}`, { ipWhitelist: ['10.9.9.9'] }));
    try {
      const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT });
      expect(code).toBe('FORBIDDEN');
      expect(record.diagnosis).toEqual({ check: 'ip-whitelist', address: '127.0.0.1', whitelist: ['10.9.9.9'] });
    } finally {
      data(await control(t.engine, 'PATCH', `/keys/${SANDBOX_PAYMENT.publicKey}`, { ipWhitelist: [] }));
    }
  });

  it('finds the query signed with its ?, a POST signed empty, and Python-spaced JSON', async () => {
    const query = 'identifier_type=external_id';
    const mark = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', query, ...SANDBOX_PAYMENT, sign: { payload: `?${query}` } });
    expect(signatureOf(mark.record).likelyCause).toBe('query-question-mark');
    const empty = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { payload: '' } });
    expect(signatureOf(empty.record).likelyCause).toBe('body-excluded');
    // Python's json.dumps(body): ", " and ": " separators, non-ASCII as \uXXXX.
    const python = `{${Object.entries(BODY).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`.replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    expect(python).toContain('"amount": 5000, "phone_number"');
    expect(python).toContain('Caf\\u00e9');
    const spaced = await sendRaw(t.engine, { method: 'POST', path: '/v1/payments', body: compact, ...SANDBOX_PAYMENT, sign: { payload: python } });
    expect(signatureOf(spaced.record)).toMatchObject({ likelyCause: 'body-reserialised', bodyVariant: 'spaced' });
  });

  it('says the key is disabled', async () => {
    data(await control(t.engine, 'PATCH', `/keys/${SANDBOX_PAYMENT.publicKey}`, { active: false }));
    try {
      const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT });
      expect(code).toBe('INVALID_API_KEY');
      expect(record.diagnosis).toEqual({ check: 'api-key', reason: 'inactive', keyType: 'payment', requiredKeyType: 'payment' });
    } finally {
      data(await control(t.engine, 'PATCH', `/keys/${SANDBOX_PAYMENT.publicKey}`, { active: true }));
    }
  });

  it('says the application is not approved for live', async () => {
    const live = { publicKey: 'pk_live_payment_paydeskdemo01', secret: 'sk_live_payment_paydeskdemo01_secret' };
    const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...live, environment: 'live' });
    expect(code).toBe('LIVE_MODE_NOT_ENABLED');
    expect(record).toMatchObject({ environment: 'live', diagnosis: { check: 'live-mode' } });
  });

  it('says the application is inactive', async () => {
    data(await control(t.engine, 'PATCH', '/applications/app_paydesk_demo', { status: 'inactive' }));
    try {
      const { code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYMENT });
      expect(code).toBe('APP_NOT_ACTIVE');
      expect(record.diagnosis).toEqual({ check: 'application', applicationStatus: 'inactive' });
    } finally {
      data(await control(t.engine, 'PATCH', '/applications/app_paydesk_demo', { status: 'active' }));
    }
  });
});
