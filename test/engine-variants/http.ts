/**
 * Signed requests to a sandbox over real HTTP, answered as bytes: status, headers and the raw text,
 * so a test sees what a variant sends (an HTML page, a missing header, no answer at all).
 */
import type { Sandbox } from '../../packages/sandbox/src/index';

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

export async function send(sandbox: Sandbox, method: 'GET' | 'POST', target: string, body?: unknown): Promise<RawAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const keyType = target.startsWith('/v1/payout') || target.startsWith('/v1/balance') ? 'payout' : 'payment';
  const headers = { ...sandbox.sign(method, target, text, keyType), ...(text === undefined ? {} : { 'content-type': 'application/json' }) };
  const response = await fetch(`${sandbox.url}${target}`, { method, headers, body: text });
  const raw = await response.text();
  return { status: response.status, headers: response.headers, text: raw, json: <T>() => JSON.parse(raw) as T };
}

let counter = 0;
/** A payout or payment body with a fresh external id unless one is given. */
export function transactionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    payment_method: 'service_demo',
    amount: 5000,
    phone_number: '+237650000001',
    customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
    external_id: `variant-${process.pid}-${counter}`,
    metadata: { order: counter },
    ...overrides,
  };
}
