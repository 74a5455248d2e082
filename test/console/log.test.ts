/**
 * The one logger (packages/sandbox/src/log.ts): secret-named fields and secret-shaped values never reach the
 * file, the file stops at its size cap, and a real send signed with a secret from the real OS
 * keychain leaves no trace of it in the console's log file (read back from disk).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog, processLog, REDACTED } from '@paydesk/sandbox';
import { expectOk, paymentRequest, startRuntime, tempDir } from './helpers';

describe('the logger', () => {
  it('blanks secret-named fields and secret-shaped values anywhere in a line, and keeps the rest', async () => {
    const file = join(tempDir('paydesk-log-'), 'logs', 'test.log');
    const log = createLog({ file });
    const secrets = ['sk_live_payout_abcdef123456', 'whsec_c2VjcmV0LXNpZ25pbmc', 'adm_0123456789abcdef', 'plain-password-1', 'opaque-token-value', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDDX7Kn7o='];
    log.error(`failed with Authorization: Bearer ${secrets[4]} and key ${secrets[0]}`, {
      profileId: 'p1',
      headers: { authorization: `Bearer ${secrets[4]}`, 'svc-signature': secrets[5], 'content-type': 'application/json' },
      secretKey: secrets[0],
      webhook: { secret: secrets[1], url: 'http://127.0.0.1:9/hook' },
      nested: [{ password: secrets[3] }, `admin ${secrets[2]}`],
      error: new Error(`signature v1 check failed for ${secrets[1]}`),
      hasSecret: true,
    });
    await log.flush();
    const text = readFileSync(file, 'utf8');
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    const line = JSON.parse(text.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'error',
      message: `failed with Authorization: ${REDACTED} and key ${REDACTED}`,
      profileId: 'p1',
      headers: { authorization: REDACTED, 'svc-signature': REDACTED, 'content-type': 'application/json' },
      secretKey: REDACTED,
      webhook: { secret: REDACTED, url: 'http://127.0.0.1:9/hook' },
      nested: [{ password: REDACTED }, `admin ${REDACTED}`],
      error: { name: 'Error', message: `signature v1 check failed for ${REDACTED}` },
      hasSecret: true,
    });
    expect(typeof line.at).toBe('string');
    await log.close();
  });

  it('never writes a hex request signature: not under a signature-named header, nor quoted in a message or a value', async () => {
    const file = join(tempDir('paydesk-log-'), 'logs', 'signature.log');
    const log = createLog({ file });
    const hex = (seed: string) => createHash('sha256').update(seed).digest('hex');
    const [inHeader, inMessage, inValue, upper] = [hex('header'), hex('message'), hex('value'), hex('upper').toUpperCase()];
    const opaque = 'opaque-signature-value-not-hex';
    log.warn(`request refused: X-SVC-Signature ${inMessage} did not match`, {
      headers: { 'X-SVC-Signature': inHeader, 'X-Acme-Signature': opaque, 'content-type': 'application/json' },
      detail: `signed ${inValue} at 1700000000`,
      echoed: upper,
      transactionId: 'TE_3f2a',
    });
    await log.flush();
    const text = readFileSync(file, 'utf8');
    for (const secret of [inHeader, inMessage, inValue, upper, opaque]) expect(text, secret).not.toContain(secret);
    expect(text).not.toMatch(/[0-9a-f]{64}/i);
    expect(JSON.parse(text.trim())).toMatchObject({
      message: `request refused: X-SVC-Signature ${REDACTED} did not match`,
      headers: { 'X-SVC-Signature': REDACTED, 'X-Acme-Signature': REDACTED, 'content-type': 'application/json' },
      detail: `signed ${REDACTED} at 1700000000`,
      echoed: REDACTED,
      transactionId: 'TE_3f2a',
    });
    await log.close();
  });

  it('stops a file at its size cap and keeps one older file', async () => {
    const file = join(tempDir('paydesk-log-'), 'capped.log');
    const log = createLog({ file, maxBytes: 4096 });
    for (let i = 0; i < 200; i += 1) {
      log.info('a line of about a hundred bytes', { i, filler: 'x'.repeat(40) });
      if (i % 20 === 0) await log.flush();
    }
    await log.flush();
    expect(statSync(file).size).toBeLessThanOrEqual(4096);
    expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(4096);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ i: 199 });
    await log.close();
  });
});

describe('the console log after a send with a secret from the real keychain', () => {
  let runtime: Awaited<ReturnType<typeof startRuntime>> | undefined;
  afterAll(async () => {
    await runtime?.close();
  });

  it('holds no secret: neither the keychain secret nor any engine key, even when a line quotes one', async () => {
    runtime = await startRuntime();
    const [app] = runtime.engine!.api.applications();
    const paymentKey = app!.keys.find((key) => key.environment === 'sandbox' && key.type === 'payment')!;
    const profile = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Keychain sandbox',
        baseUrl: runtime.engineUrl!,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: paymentKey.publicKey,
        payoutPublicKey: app!.keys.find((key) => key.environment === 'sandbox' && key.type === 'payout')!.publicKey,
      }),
    );
    // Into the OS keychain (Secret Service), then signed with by main for a real HTTP send.
    expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: 'payment', secret: paymentKey.secretKey }));
    expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
    const sent = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ amount: 1200 }) }));
    expect(sent.state).toBe('known');
    // The engine's and transports' own lines go to the same file while the console runs.
    processLog.error('engine: a failure quoting what it should not', { token: paymentKey.secretKey, detail: `key ${paymentKey.secretKey}` });
    expectOk(await runtime.handlers['profiles:delete']({ id: profile.id }));
    const logPath = runtime.logPath;
    await runtime.close();
    runtime = undefined;
    expect(existsSync(logPath)).toBe(true);
    const text = readFileSync(logPath, 'utf8');
    expect(text).toContain('console started');
    expect(text).toContain('engine: a failure quoting what it should not');
    expect(text).not.toContain(paymentKey.secretKey);
    for (const key of app!.keys) expect(text).not.toContain(key.secretKey);
    expect(text).not.toMatch(/\bsk_[A-Za-z0-9]/);
  });
});
