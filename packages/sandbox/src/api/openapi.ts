/**
 * `GET /openapi.json`: the public API as an OpenAPI 3.1 document, generated from the same zod
 * schemas the engine validates and answers with (`z.toJSONSchema`), with every error code each
 * endpoint can answer (from `ERROR_CODES`) and the four authentication headers. The control API
 * is not in it: it is a local tool, not part of the service.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  authHeaderNames,
  balanceSchema,
  ERROR_CODES,
  errorEnvelopeSchema,
  fullTransactionSchema,
  initiatedTransactionSchema,
  transactionRequestSchema,
  type ErrorCode,
  type KeyType,
} from '../../../../shared/contract';

/** Codes every authenticated endpoint can answer, in the order the checks run (see auth.ts). */
const AUTH_CODES: ErrorCode[] = [
  'AUTHENTICATION_HEADERS_REQUIRED',
  'INVALID_TIMESTAMP',
  'INVALID_ENVIRONMENT',
  'TIMESTAMP_EXPIRED',
  'INVALID_API_KEY',
  'API_KEY_ENV_MISMATCH',
  'INVALID_DIGITAL_SIGNATURE',
  'FORBIDDEN',
  'APPLICATION_NOT_ACTIVE',
  'APP_NOT_ACTIVE',
  'LIVE_MODE_NOT_ENABLED',
  'RATE_LIMIT_EXCEEDED',
  'MAINTENANCE_MODE',
  'MALFORMED_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL_ERROR',
];
const BODY_CODES: ErrorCode[] = ['UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR'];
const PAYMENT_METHOD_CODES: ErrorCode[] = ['PAYMENT_METHOD_NOT_SUPPORTED', 'PAYMENT_METHOD_NOT_ENABLED', 'APP_PAYMENT_METHOD_NOT_ENABLED'];
const PAYOUT_METHOD_CODES: ErrorCode[] = ['PAYOUT_METHOD_NOT_SUPPORTED', 'PAYOUT_METHOD_NOT_ENABLED', 'APP_PAYOUT_METHOD_NOT_ENABLED', 'PAYOUT_NOT_AVAILABLE', 'INSUFFICIENT_FUNDS'];

/** Codes no endpoint answers: a path that matches no endpoint, and a spec code the engine never needs. */
export const CODES_OUTSIDE_ENDPOINTS: ErrorCode[] = ['ROUTE_NOT_FOUND', 'ENVIRONMENT_CONTEXT_NOT_SET'];

interface EndpointSpec {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  keyType: KeyType;
  /** Served locally where the spec implies it (docs/sandbox-engine.md, "Local extensions"). */
  localExtension: boolean;
  requestBody: boolean;
  responseSchema: 'InitiatedTransaction' | 'FullTransaction' | 'Balance';
  successMessage: string;
  errors: ErrorCode[];
  pathId: boolean;
  identifierType: boolean;
}

export const PUBLIC_ENDPOINTS: EndpointSpec[] = [
  { method: 'post', path: '/v1/payments', operationId: 'initiatePayment', summary: 'Initiate a payment', keyType: 'payment', localExtension: false, requestBody: true, responseSchema: 'InitiatedTransaction', successMessage: 'Payment initiated: the customer will receive a prompt to approve it.', errors: [...AUTH_CODES, ...BODY_CODES, ...PAYMENT_METHOD_CODES], pathId: false, identifierType: false },
  { method: 'post', path: '/v1/payouts/initiate', operationId: 'initiatePayout', summary: 'Initiate a payout', keyType: 'payout', localExtension: false, requestBody: true, responseSchema: 'InitiatedTransaction', successMessage: 'Payout initiated: the customer will receive a prompt to approve it.', errors: [...AUTH_CODES, ...BODY_CODES, ...PAYOUT_METHOD_CODES], pathId: false, identifierType: false },
  { method: 'get', path: '/v1/payments/{transactionId}', operationId: 'retrievePayment', summary: 'Retrieve a payment (stored status)', keyType: 'payment', localExtension: false, requestBody: false, responseSchema: 'FullTransaction', successMessage: 'Payment retrieved.', errors: [...AUTH_CODES, 'PAYMENT_NOT_FOUND'], pathId: true, identifierType: true },
  { method: 'get', path: '/v1/payments/{transactionId}/verify', operationId: 'verifyPayment', summary: 'Verify a payment with the provider', keyType: 'payment', localExtension: false, requestBody: false, responseSchema: 'FullTransaction', successMessage: 'Payment completed.', errors: [...AUTH_CODES, 'PAYMENT_NOT_FOUND'], pathId: true, identifierType: false },
  { method: 'get', path: '/v1/payouts/{transactionId}', operationId: 'retrievePayout', summary: 'Retrieve a payout (local extension)', keyType: 'payout', localExtension: true, requestBody: false, responseSchema: 'FullTransaction', successMessage: 'Payout retrieved.', errors: [...AUTH_CODES, 'PAYOUT_NOT_FOUND'], pathId: true, identifierType: true },
  { method: 'get', path: '/v1/payouts/{transactionId}/verify', operationId: 'verifyPayout', summary: 'Verify a payout with the provider (local extension)', keyType: 'payout', localExtension: true, requestBody: false, responseSchema: 'FullTransaction', successMessage: 'Payout completed.', errors: [...AUTH_CODES, 'PAYOUT_NOT_FOUND'], pathId: true, identifierType: false },
  { method: 'get', path: '/v1/balance', operationId: 'walletBalance', summary: 'Wallet balance of the key\'s application and environment (local extension)', keyType: 'payout', localExtension: true, requestBody: false, responseSchema: 'Balance', successMessage: 'Wallet balance retrieved.', errors: AUTH_CODES, pathId: false, identifierType: false },
];

type JsonSchema = Record<string, unknown>;

/** A component schema: JSON Schema 2020-12 (OpenAPI 3.1's dialect) without its `$schema` line. */
function componentSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function successEnvelope(ref: string): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'message', 'data'],
    additionalProperties: false,
    properties: { success: { const: true }, message: { type: 'string' }, data: { $ref: `#/components/schemas/${ref}` } },
  };
}

function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const retryAfter = list.includes('RATE_LIMIT_EXCEEDED') || list.includes('MAINTENANCE_MODE');
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CODES[code].condition}`).join('; '),
      'x-error-codes': list,
      ...(retryAfter ? { headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { type: 'object', properties: { code: { enum: list } } }] },
        },
      },
    };
  }
  return responses;
}

function operation(endpoint: EndpointSpec): JsonSchema {
  const parameters: JsonSchema[] = [];
  if (endpoint.pathId) {
    parameters.push({
      name: 'transactionId',
      in: 'path',
      required: true,
      description: endpoint.identifierType ? 'The service transaction id, or the merchant external_id with identifier_type=external_id.' : 'The service transaction id.',
      schema: { type: 'string', minLength: 1 },
    });
  }
  if (endpoint.identifierType) {
    parameters.push({ name: 'identifier_type', in: 'query', required: false, schema: { type: 'string', enum: ['transaction_id', 'external_id'], default: 'transaction_id' } });
  }
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: `Signed with the ${endpoint.keyType === 'payment' ? 'Payment' : 'Payout'} key pair; a key of the other type answers INVALID_API_KEY.`,
    tags: [endpoint.keyType === 'payment' ? 'Payments' : 'Payouts'],
    'x-key-type': endpoint.keyType,
    'x-local-extension': endpoint.localExtension,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.requestBody
      ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/TransactionRequest' } } } } }
      : {}),
    responses: {
      '200': {
        description: endpoint.successMessage,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${endpoint.responseSchema}Envelope` } } },
      },
      ...errorResponses(endpoint.errors),
    },
  };
}

export function buildOpenApiDocument(options: { headerWord?: string; serverUrl?: string } = {}): JsonSchema {
  const names = authHeaderNames(options.headerWord);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const endpoint of PUBLIC_ENDPOINTS) (paths[endpoint.path] ??= {})[endpoint.method] = operation(endpoint);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment and Payout Service (Paydesk local sandbox)',
      version: '1.0.0',
      description:
        'The public API as the local sandbox engine serves it. Every response uses one envelope: `success`, `message`, and `data` (success) or `code` + `errors` (error). ' +
        `Every request carries the four headers Authorization, ${names.timestamp}, ${names.signature} and ${names.environment}; ` +
        'the signature is the lowercase hex HMAC-SHA256, keyed with the secret key, of `{publicKey}.{timestamp}.{METHOD}.{path}.{payload}` ' +
        '(payload: the raw query string for GET, the raw JSON body for POST). Unknown paths answer 404 ROUTE_NOT_FOUND.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [{ name: 'Payments' }, { name: 'Payouts' }],
    security: [{ PublicKey: [], Timestamp: [], Signature: [], Environment: [] }],
    paths,
    components: {
      securitySchemes: {
        PublicKey: { type: 'apiKey', in: 'header', name: names.authorization, description: 'The public key, `pk_<environment>_<payment|payout>_<characters>`.' },
        Timestamp: { type: 'apiKey', in: 'header', name: names.timestamp, description: 'Unix time in seconds; at most 300 s from server time.' },
        Signature: { type: 'apiKey', in: 'header', name: names.signature, description: 'Lowercase hex HMAC-SHA256 of the canonical string, keyed with the secret key.' },
        Environment: { type: 'apiKey', in: 'header', name: names.environment, description: '`sandbox` or `live`; must match the key.' },
      },
      schemas: {
        TransactionRequest: componentSchema(transactionRequestSchema, 'input'),
        InitiatedTransaction: componentSchema(initiatedTransactionSchema, 'output'),
        FullTransaction: componentSchema(fullTransactionSchema, 'output'),
        Balance: componentSchema(balanceSchema, 'output'),
        ErrorEnvelope: componentSchema(errorEnvelopeSchema, 'output'),
        InitiatedTransactionEnvelope: successEnvelope('InitiatedTransaction'),
        FullTransactionEnvelope: successEnvelope('FullTransaction'),
        BalanceEnvelope: successEnvelope('Balance'),
      },
    },
  };
}

export function registerOpenApiRoute(app: FastifyInstance, headerWord: string): void {
  let cached: string | null = null;
  app.get('/openapi.json', async function openApiDocument(request, reply) {
    cached ??= JSON.stringify(buildOpenApiDocument({ headerWord }));
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-cache').send(cached);
  });
}
