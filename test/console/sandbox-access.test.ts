/**
 * What the Sandbox screen gives a developer, against the real in-process engine (issue 16 item
 * 12): the OpenAPI and control API URLs answer; the admin token revealed opens the control API
 * (which refuses without it); the signing secret revealed verifies a real webhook delivery with the
 * screen's one-line check (renderer/src/screens/SandboxAccess.tsx VERIFY_EXAMPLE).
 */
import * as crypto from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_EXAMPLE } from '../../renderer/src/screens/SandboxAccess';
import { expectOk, paymentRequest, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.writeHead(200).end();
  });
});

beforeAll(async () => {
  runtime = await startRuntime();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  if (runtime) expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url: '' }));
  // The engine first (its dispatcher holds a connection to the receiver), then the receiver.
  await runtime?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  if (runtime) rmSync(runtime.dir, { recursive: true, force: true });
});

/** The screen's check, run as a developer would paste it. */
function verify(secret: string, headers: IncomingHttpHeaders, rawBody: string): boolean {
  return runInNewContext(VERIFY_EXAMPLE, { require: (name: string) => (name === 'crypto' ? crypto : null), Buffer, process: { env: { WEBHOOK_SECRET: secret } }, h: headers, rawBody }) as boolean;
}

describe('sandbox access for a developer', () => {
  it('gives the OpenAPI and control API URLs, and an admin token the control API takes', async () => {
    const status = expectOk(await runtime.handlers['sandbox:status']({}));
    expect(status.openApiUrl).toBe(`${runtime.engineUrl}/openapi.json`);
    expect(status.controlUrl).toBe(`${runtime.engineUrl}/_sandbox`);
    expect((await fetch(status.openApiUrl!)).status).toBe(200);
    expect((await fetch(`${status.controlUrl}/applications`)).status).toBe(401);
    const { value: token } = expectOk(await runtime.handlers['sandbox:revealSecret']({ which: 'adminToken' }));
    expect((await fetch(`${status.controlUrl}/applications`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('reveals the signing secret that really signs the deliveries, checked by the screen’s one line', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url }));
    const { value: secret } = expectOk(await runtime.handlers['sandbox:revealSecret']({ which: 'webhookSecret' }));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ phone_number: '+237650000001' }) }));
    runtime.engine!.control.settleNow(created.transactionId!);
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const delivery = received[0]!;
    expect(verify(secret, delivery.headers, delivery.body)).toBe(true);
    // The same check refuses a changed body and another secret.
    expect(verify(secret, delivery.headers, delivery.body.replace('completed', 'cancelled'))).toBe(false);
    expect(verify('whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==', delivery.headers, delivery.body)).toBe(false);
  });
});
