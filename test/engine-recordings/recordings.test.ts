/**
 * Recordings over the control API: the inspector's requests and the webhook attempts of a period
 * as HAR 1.2 (structure checked against the spec's required fields) and as JSON lines, with every
 * secret redacted (secret keys, the whsec_ signing secret, webhook signatures).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatTimestamp } from '../../shared/contract';
import { control } from '../engine-control/control';
import { ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from '../engine/helpers';
import { startReceiver, type Receiver } from '../engine-webhooks/receiver';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;
let startedAt: string;

const nameValue = z.strictObject({ name: z.string(), value: z.string() });
/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the required fields of each object. */
const harSchema = z.object({
  log: z.object({
    version: z.literal('1.2'),
    creator: z.object({ name: z.string().min(1), version: z.string().min(1) }),
    pages: z.array(z.unknown()).optional(),
    entries: z.array(
      z.object({
        startedDateTime: z.iso.datetime(),
        time: z.number().nonnegative(),
        request: z.object({
          method: z.string().min(1),
          url: z.url(),
          httpVersion: z.string(),
          cookies: z.array(z.unknown()),
          headers: z.array(nameValue),
          queryString: z.array(nameValue),
          postData: z.object({ mimeType: z.string(), text: z.string() }).optional(),
          headersSize: z.number().int(),
          bodySize: z.number().int(),
        }),
        response: z.object({
          status: z.number().int(),
          statusText: z.string(),
          httpVersion: z.string(),
          cookies: z.array(z.unknown()),
          headers: z.array(nameValue),
          content: z.object({ size: z.number().int(), mimeType: z.string() }),
          redirectURL: z.string(),
          headersSize: z.number().int(),
          bodySize: z.number().int(),
        }),
        cache: z.object({}),
        timings: z.object({ send: z.number(), wait: z.number(), receive: z.number() }),
      }),
    ),
  }),
});

async function fetchRecording(query: string): Promise<{ status: number; type: string | null; disposition: string | null; text: string }> {
  const response = await fetch(`${t.engine.api.url}/_sandbox/recordings${query}`, { headers: { authorization: `Bearer ${t.engine.control.adminToken}` } });
  return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), text: await response.text() };
}

let paymentId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({ settleMs: 0 });
  t.engine.webhooks.setUrl(APP, receiver.url);
  startedAt = formatTimestamp(t.engine.clock.nowMicros());
  paymentId = ok(await t.client.createPayment(paymentBody())).transaction_id;
  await waitForStatus(t.engine, paymentId, 'completed');
  await receiver.waitFor(() => receiver.received.length === 2);
  // A request that sends a secret key as the public key, and one with a secret in its query.
  await fetch(`${t.engine.api.url}/v1/payments/${paymentId}?note=sk_sandbox_payment_paydeskdemo01_secret`, {
    headers: { 'X-SVC-Authorization': 'sk_sandbox_payment_paydeskdemo01_secret', 'X-SVC-Environment': 'sandbox' },
  });
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

function expectNoSecrets(text: string): void {
  expect(text).not.toContain('sk_sandbox_payment_paydeskdemo01_secret');
  expect(text).not.toContain(t.engine.webhooks.secret(APP));
  for (const webhook of receiver.received) expect(text).not.toContain(webhook.headers['webhook-signature']);
  expect(text).not.toMatch(/whsec_[A-Za-z0-9+/=]{8,}/);
}

describe('recordings', () => {
  it('exports a valid HAR 1.2 with the API requests and every webhook attempt, secrets redacted', async () => {
    const answer = await fetchRecording('?format=har');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('application/json');
    expect(answer.disposition).toMatch(/^attachment; filename="paydesk-sandbox-\d{14}\.har"$/);
    const har = harSchema.parse(JSON.parse(answer.text));
    const requests = har.log.entries.filter((entry) => entry.request.url.startsWith(t.engine.api.url));
    const webhooks = har.log.entries.filter((entry) => entry.request.url === receiver.url);
    expect(requests.map((entry) => `${entry.request.method} ${new URL(entry.request.url).pathname} ${entry.response.status}`)).toEqual([
      'POST /v1/payments 200',
      `GET /v1/payments/${paymentId} 401`,
    ]);
    expect(requests[0]?.request.postData?.text).toContain('"amount":5000');
    expect(webhooks.map((entry) => entry.response.status)).toEqual([200, 200]);
    expect(webhooks[0]?.request.headers).toContainEqual({ name: 'webhook-signature', value: '[redacted]' });
    expect(JSON.parse(webhooks[1]?.request.postData?.text ?? '{}').type).toBe('payment.completed');
    // Sorted by start time.
    const starts = har.log.entries.map((entry) => Date.parse(entry.startedDateTime));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expectNoSecrets(answer.text);
    expect(answer.text).toContain('[redacted]');
  });

  it('exports JSON lines, one record per line, oldest first, secrets redacted', async () => {
    const answer = await fetchRecording('?format=jsonl');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('application/x-ndjson');
    const lines = answer.text.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; at: string; record: Record<string, unknown> });
    expect(lines.map((line) => line.type).sort()).toEqual(['request', 'request', 'webhook', 'webhook']);
    const webhook = lines.find((line) => line.type === 'webhook');
    expect(webhook?.record).toMatchObject({ transactionId: paymentId, status: 'delivered', chaos: [] });
    expectNoSecrets(answer.text);
  });

  it('keeps to the period asked for', async () => {
    const later = formatTimestamp(t.engine.clock.nowMicros() + 3_600_000_000);
    const empty = harSchema.parse(JSON.parse((await fetchRecording(`?format=har&from=${later}`)).text));
    expect(empty.log.entries).toEqual([]);
    const all = harSchema.parse(JSON.parse((await fetchRecording(`?from=${startedAt}&to=${later}`)).text));
    expect(all.log.entries).toHaveLength(4);
    expect((await fetchRecording(`?format=jsonl&to=${startedAt}`)).text).toBe('');
    expect(t.engine.inspector.recording({ format: 'jsonl', appId: 'app_other' }).counts).toEqual({ requests: 2, deliveries: 0 });
  });

  it('refuses a bad query with a 422 naming it', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['?format=pcap', { format: ['must be har or jsonl'] }],
      ['?from=yesterday', { from: ['must be a timestamp like 2026-11-24T10:00:00.000000Z'] }],
      [`?from=${formatTimestamp(t.engine.clock.nowMicros())}&to=${startedAt}`, { to: ['must not be before from'] }],
      ['?since=1', { since: ['is not a known field'] }],
    ];
    for (const [query, errors] of cases) {
      const answer = await control(t.engine, 'GET', `/recordings${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body.errors, query).toEqual(errors);
    }
  });
});
