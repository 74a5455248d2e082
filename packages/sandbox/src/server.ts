/**
 * The fastify instance: raw-body reading (the signature covers the exact bytes), the envelope for
 * every error fastify itself raises, 404 for unknown routes, and never a stack trace or a bare 500.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { ApiError, errorBody } from './api/errors';
import { rawBodyParser } from './api/raw-body';
import { processLog } from './log';

/** Fastify's own refusals, mapped to the API's codes. */
function fromFastifyError(error: FastifyError): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The Content-Type is not supported: use application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
    case 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE':
      return new ApiError('MALFORMED_REQUEST', 'The request is malformed.');
    default:
      if (typeof error.statusCode === 'number' && error.statusCode === 413) {
        return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
      }
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return new ApiError('MALFORMED_REQUEST', 'The request is malformed.');
      }
      return null;
  }
}

const CLIENT_ERROR_RESPONSE = (() => {
  const body = JSON.stringify(errorBody(new ApiError('MALFORMED_REQUEST', 'The HTTP request is malformed.')));
  return `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
})();

export function createServer(options: { bodyLimitBytes: number; logger: boolean }): FastifyInstance {
  const app = Fastify({
    logger: options.logger,
    bodyLimit: options.bodyLimitBytes,
    // Ids are at most a few dozen characters; longer path segments are simply not found.
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: false,
    frameworkErrors(error, _request, reply) {
      const mapped = fromFastifyError(error as FastifyError) ?? new ApiError('MALFORMED_REQUEST', 'The request is malformed.');
      void (reply as FastifyReply).code(mapped.status).headers(mapped.headers).send(errorBody(mapped));
    },
    clientErrorHandler(_error, socket) {
      if (socket.writable) socket.end(CLIENT_ERROR_RESPONSE);
      else socket.destroy();
    },
  });

  // Every body is read as bytes whatever its type: routes check the media type after
  // authentication, and the signature covers the body exactly as sent. The parser applies the body
  // limit itself, reading the rest of an oversized body before the 413 (see raw-body.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', rawBodyParser(options.bodyLimitBytes));

  app.setErrorHandler(function envelopeForErrors(error, request, reply) {
    const apiError = error instanceof ApiError ? error : fromFastifyError(error as FastifyError);
    if (apiError) {
      return reply.code(apiError.status).headers(apiError.headers).send(errorBody(apiError));
    }
    request.log.error({ err: error }, 'unexpected error');
    if (!options.logger) processLog.error('engine: unexpected error', { error });
    const internal = new ApiError('INTERNAL_ERROR', 'An unexpected error occurred.');
    return reply.code(500).send(errorBody(internal));
  });

  app.setNotFoundHandler(function routeNotFound(request, reply) {
    const path = (request.url.split('?')[0] ?? '').slice(0, 200);
    const error = new ApiError('ROUTE_NOT_FOUND', `No endpoint ${request.method} ${path}.`);
    return reply.code(404).send(errorBody(error));
  });

  return app;
}
