/**
 * Reading a control API body: empty means `{}`; otherwise JSON (application/json) checked with
 * its zod schema, every failing field at once in the public API's field-error map.
 */
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { toFieldErrors } from '../../../../shared/contract';
import { jsonObjectFrom } from '../api/body';
import { ControlError } from './guard';

export function readControlBody<S extends z.ZodType>(request: FastifyRequest, schema: S): z.output<S> {
  const raw = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  let value: unknown = {};
  if (raw.trim() !== '') {
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json') {
      throw new ControlError('UNSUPPORTED_MEDIA_TYPE', 'Send control API bodies as JSON with Content-Type: application/json.');
    }
    const parsed = jsonObjectFrom(raw);
    if ('problem' in parsed) throw new ControlError('MALFORMED_REQUEST', parsed.problem);
    value = parsed.value;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ControlError('VALIDATION_ERROR', 'The request failed validation.', toFieldErrors(result.error.issues));
  return result.data;
}

/** Query parameters through a schema, with the same 422 on failure. */
export function readControlQuery<S extends z.ZodType>(request: FastifyRequest, schema: S): z.output<S> {
  const result = schema.safeParse(request.query ?? {});
  if (!result.success) throw new ControlError('VALIDATION_ERROR', 'The query parameters failed validation.', toFieldErrors(result.error.issues));
  return result.data;
}
