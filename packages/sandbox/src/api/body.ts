/**
 * Reading a JSON request body after authentication: media type (415), JSON syntax and shape (400),
 * then the shared zod schema (422 with every failing field).
 */
import { toFieldErrors, transactionRequestSchema, type TransactionRequest } from '../../../../shared/contract';
import { ApiError, validationError } from './errors';

/** `application/json`, optionally with `charset=utf-8`: the only body the API reads. */
export function requireJsonMediaType(contentType: string | undefined): void {
  // What nearly every client sends, accepted without splitting the header apart.
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') return;
  if (contentType === undefined || contentType.trim() === '') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
  }
  const [mediaType, ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const charset = params.find((param) => param.startsWith('charset='));
  if (mediaType !== 'application/json' || (charset !== undefined && charset.replace(/"/g, '') !== 'charset=utf-8')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType} is not supported: use application/json (UTF-8).`);
  }
}

/** JSON text as an object, or why it is not one: the one parse the public and the control API share. */
export function jsonObjectFrom(text: string): { value: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Any failure, a RangeError on deep nesting included, is the client's bad body: never a 500.
    // (V8's parser is not recursive; what it builds is checked for depth by the schemas, see
    // LIMITS.metadataMaxDepth, before anything serialises it.)
    return { problem: 'The request body is not valid JSON.' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The request body must be a JSON object.' };
  return { value: value as Record<string, unknown> };
}

export function parseJsonObject(body: Buffer | undefined): Record<string, unknown> {
  const text = body === undefined ? '' : body.toString('utf8');
  if (text.trim() === '') throw new ApiError('MALFORMED_REQUEST', 'The request body is empty: send a JSON object.');
  const parsed = jsonObjectFrom(text);
  if ('problem' in parsed) throw new ApiError('MALFORMED_REQUEST', parsed.problem);
  return parsed.value;
}

export function readTransactionRequest(contentType: string | undefined, body: Buffer | undefined): TransactionRequest {
  requireJsonMediaType(contentType);
  const json = parseJsonObject(body);
  const result = transactionRequestSchema.safeParse(json);
  if (!result.success) throw validationError(toFieldErrors(result.error.issues));
  return result.data;
}
