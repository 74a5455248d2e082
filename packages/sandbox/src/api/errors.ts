/**
 * The API's error envelope, and the one error type routes throw to produce it.
 */
import { ERROR_CODES, type ErrorCode, type FieldErrors } from '../../../../shared/contract';

/** A refusal the API answers with its error envelope; thrown anywhere below a route. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: unknown[] | FieldErrors;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, errors: unknown[] | FieldErrors = [], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].http;
    this.errors = errors;
    this.headers = headers;
  }
}

export interface ErrorBody {
  success: false;
  message: string;
  code: ErrorCode;
  errors: unknown[] | FieldErrors;
}

export interface SuccessBody<T> {
  success: true;
  message: string;
  data: T;
}

export function errorBody(error: ApiError): ErrorBody {
  return { success: false, message: error.message, code: error.code, errors: error.errors };
}

export function successBody<T>(message: string, data: T): SuccessBody<T> {
  return { success: true, message, data };
}

/** A validation failure: 422 with every failing field at once. */
export function validationError(fields: FieldErrors, message = 'The request failed validation.'): ApiError {
  return new ApiError('VALIDATION_ERROR', message, fields);
}
