/**
 * `GET /openapi.json`: a valid OpenAPI 3.1 document of the public API, with every endpoint the
 * engine serves, every error code each can answer, the auth headers, and schemas that real
 * responses of the running engine satisfy.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
// ajv comes with fastify and the OpenAPI validator; its 2020-12 build matches OpenAPI 3.1's dialect.
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../packages/sandbox/src/engine';
import { CODES_OUTSIDE_ENDPOINTS } from '../../packages/sandbox/src/api/openapi';
import { ERROR_CODE_LIST, ERROR_CODES, initiatedTransactionSchema } from '../../shared/contract';
import { ok, paymentBody, startTestEngine, type TestEngine } from '../engine/helpers';

interface Operation {
  operationId: string;
  responses: Record<string, { 'x-error-codes'?: string[]; content: { 'application/json': { schema: unknown } } }>;
  requestBody?: unknown;
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { name: string; in: string }> };
  security: Record<string, string[]>[];
};

let t: TestEngine;
let doc: Document;
beforeAll(async () => {
  t = await startTestEngine({ settleMs: 0 });
  const response = await fetch(`${t.engine.api.url}/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  doc = (await response.json()) as Document;
});
afterAll(async () => {
  await t.stop();
});

function operations(): { path: string; method: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
}

function documentedCodes(operation: Operation): string[] {
  return Object.values(operation.responses).flatMap((response) => response['x-error-codes'] ?? []);
}

/** A validator for one response of the document, with its components resolvable. */
function responseValidator(path: string, method: string, status: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  const schema = doc.paths[path]?.[method]?.responses[status]?.content['application/json'].schema;
  if (!schema) throw new Error(`no ${status} response for ${method} ${path}`);
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
  return ajv.compile(rewritten);
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1 with @seriousme/openapi-schema-validator', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    // The validator does refuse a broken document (so the pass above means something).
    const { info: _info, ...withoutInfo } = doc as unknown as Record<string, unknown>;
    expect((await new Validator().validate(withoutInfo)).valid).toBe(false);
  });

  it('describes the public API and nothing of the control API', () => {
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/balance',
      '/v1/payments',
      '/v1/payments/{transactionId}',
      '/v1/payments/{transactionId}/verify',
      '/v1/payouts/initiate',
      '/v1/payouts/{transactionId}',
      '/v1/payouts/{transactionId}/verify',
    ]);
    expect(JSON.stringify(doc)).not.toContain('_sandbox');
  });

  it('requires the four authentication headers on every operation', () => {
    expect(Object.values(doc.components.securitySchemes).map((scheme) => `${scheme.in}:${scheme.name}`)).toEqual([
      'header:Authorization',
      'header:X-SVC-Timestamp',
      'header:X-SVC-Signature',
      'header:X-SVC-Environment',
    ]);
    expect(doc.security).toEqual([{ PublicKey: [], Timestamp: [], Signature: [], Environment: [] }]);
    const custom = buildOpenApiDocument({ headerWord: 'ACME' }) as unknown as Document;
    expect(custom.components.securitySchemes.Signature?.name).toBe('X-ACME-Signature');
  });

  it('lists every error code of ERROR_CODES on the endpoints that can answer it, under its HTTP status', () => {
    const all = new Set(operations().flatMap(({ operation }) => documentedCodes(operation)));
    expect([...all].sort()).toEqual(ERROR_CODE_LIST.filter((code) => !CODES_OUTSIDE_ENDPOINTS.includes(code)).sort());
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of response['x-error-codes'] ?? []) expect(String(ERROR_CODES[code as keyof typeof ERROR_CODES].http), `${method} ${path} ${code}`).toBe(status);
      }
      for (const code of ['AUTHENTICATION_HEADERS_REQUIRED', 'INVALID_DIGITAL_SIGNATURE', 'FORBIDDEN', 'MAINTENANCE_MODE', 'RATE_LIMIT_EXCEEDED']) {
        expect(documentedCodes(operation), `${method} ${path}`).toContain(code);
      }
    }
    expect(documentedCodes(doc.paths['/v1/payouts/initiate']?.post as Operation)).toEqual(expect.arrayContaining(['INSUFFICIENT_FUNDS', 'PAYOUT_NOT_AVAILABLE', 'VALIDATION_ERROR']));
    expect(documentedCodes(doc.paths['/v1/payments/{transactionId}']?.get as Operation)).toContain('PAYMENT_NOT_FOUND');
    expect(documentedCodes(doc.paths['/v1/payments/{transactionId}']?.get as Operation)).not.toContain('PAYOUT_NOT_FOUND');
  });

  it('has a request body schema from the shared zod schema, with its limits', () => {
    const request = doc.components.schemas.TransactionRequest as { required: string[]; properties: Record<string, { maxLength?: number; properties?: Record<string, { maxLength?: number }> }>; additionalProperties: boolean };
    expect(request.required.sort()).toEqual(['amount', 'customer', 'payment_method', 'phone_number']);
    expect(request.properties.customer?.properties?.first_name?.maxLength).toBe(100);
    expect(request.additionalProperties).toBe(false);
    const ajv = new Ajv2020({ strict: false, logger: false });
    const validate = ajv.compile(request);
    expect(validate(paymentBody())).toBe(true);
    expect(validate({ ...paymentBody(), amount: 'ten' })).toBe(false);
  });

  it('matches what the running engine answers: success shapes and documented error codes', async () => {
    const created = await t.client.createPayment(paymentBody({ metadata: { order: 7 } }));
    // The client reads tolerantly (every field of the full object, null when absent): the engine's
    // own strict shape keeps what the initiate answer carries.
    const initiated = initiatedTransactionSchema.parse(ok(created));
    const check = responseValidator('/v1/payments', 'post', '200');
    const initiateRaw = { success: true, message: 'Payment initiated.', data: initiated };
    expect(check(initiateRaw), JSON.stringify(check.errors)).toBe(true);

    const retrieved = ok(await t.client.retrievePayment(initiated.transaction_id));
    const checkFull = responseValidator('/v1/payments/{transactionId}', 'get', '200');
    expect(checkFull({ success: true, message: 'Payment retrieved.', data: retrieved }), JSON.stringify(checkFull.errors)).toBe(true);

    // Raw error answers, as sent on the wire.
    const missingHeaders = await fetch(`${t.engine.api.url}/v1/payments/TE_x`);
    const body = (await missingHeaders.json()) as { code: string };
    const check401 = responseValidator('/v1/payments/{transactionId}', 'get', String(missingHeaders.status));
    expect(check401(body), JSON.stringify(check401.errors)).toBe(true);
    expect(body.code).toBe('AUTHENTICATION_HEADERS_REQUIRED');

    const notFound = await t.client.retrievePayment('TE_doesnotexist');
    expect(notFound).toMatchObject({ kind: 'api-error', code: 'PAYMENT_NOT_FOUND' });
    expect(documentedCodes(doc.paths['/v1/payments/{transactionId}']?.get as Operation)).toContain((notFound as { code: string }).code);
    const check404 = responseValidator('/v1/payments/{transactionId}', 'get', '404');
    expect(check404({ success: false, message: 'x', code: 'PAYOUT_NOT_FOUND', errors: [] })).toBe(false);
  });
});
