/**
 * docs/signing.md is the signing rule a developer reads: its worked examples must be what the code
 * computes (the one rule of client and engine), so a page that drifts from the code fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalString, signParts } from '../../packages/sandbox/src/signing';
import { payloadFor } from '../../shared/contract/canonical';

const page = readFileSync(resolve(import.meta.dirname, '../../docs/signing.md'), 'utf8');
const publicKey = 'pk_sandbox_payment_EXAMPLE0000000000';
const secretKey = 'sk_sandbox_payment_EXAMPLESECRET00000';
const timestamp = '1764633600';

/** The fenced canonical string that starts with `{publicKey}.{timestamp}.{method}.`, and the signature written after it. */
function example(method: string): { canonical: string; signature: string } {
  const match = new RegExp(String.raw`\`\`\`\n(${publicKey}\.${timestamp}\.${method}\.[^\n]*)\n\`\`\`\n\nsignature \`([0-9a-f]+)\``).exec(page);
  if (!match) throw new Error(`docs/signing.md has no ${method} example`);
  return { canonical: match[1]!, signature: match[2]! };
}

describe('docs/signing.md', () => {
  it.each([
    ['POST', '/v1/payments', '', '{"amount":45000,"currency":"XAF","phone_number":"+237650000001","external_id":"ord-45"}'],
    ['GET', '/v1/payments/tx_0123', '', undefined],
  ])('its %s example is the canonical string and signature the code computes', (method, path, query, body) => {
    const written = example(method);
    const parts = { publicKey, timestamp, method, path, payload: payloadFor(method, query, body) };
    expect(written.canonical).toBe(canonicalString(parts));
    expect(written.signature).toBe(signParts(secretKey, parts));
  });

  it('states the rule: the canonical string, HMAC-SHA256 in lowercase hex, and each method\'s payload', () => {
    expect(page).toContain('{publicKey}.{timestamp}.{METHOD}.{path}.{payload}');
    expect(page).toContain('**HMAC-SHA256**');
    expect(page).toContain('**lowercase hex**');
    expect(page).toMatch(/\*\*GET\*\*: the raw query string/);
    expect(page).toMatch(/\*\*POST\*\* \(and PATCH\): the raw JSON body/);
  });
});
