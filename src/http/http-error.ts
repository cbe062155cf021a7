/**
 * The one HTTP error class, and the mapping from the codes of LodestoneError to statuses. An error
 * carries the headers that belong to it (`Allow` with 405, `ETag` with 412), which the error
 * middleware keeps on the response.
 */
import { STATUS_CODES } from 'node:http';
import { LodestoneError, type ErrorCode } from '../errors.js';

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

const statusOf: Record<ErrorCode, number> = {
  InvalidPath: 400,
  SyntaxError: 400,
  TooManyBlankNodes: 422,
  CanonicalizationLimit: 422,
  RefConflict: 503,
  LockTimeout: 503,
  NotFound: 404,
  Corrupt: 500,
  PreconditionFailed: 412,
  PreconditionRequired: 428,
  MethodNotAllowed: 405,
  Conflict: 409,
  ConstraintViolation: 422,
  InvalidUpdate: 422,
  Unauthenticated: 401,
  QueryTimeout: 503,
  BadQuery: 400,
  WorkLimit: 422,
  Busy: 503,
};

/** Any thrown value as an HttpError; unknown errors become a 500 that says nothing of internals. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof LodestoneError) {
    const headers: Record<string, string> = {};
    if (typeof error.data.etag === 'string') headers.ETag = error.data.etag;
    if (typeof error.data.allow === 'string') headers.Allow = error.data.allow;
    if (error.code === 'LockTimeout' || error.code === 'RefConflict') headers['Retry-After'] = '1';
    if (typeof error.data.retryAfter === 'number') headers['Retry-After'] = String(error.data.retryAfter);
    return new HttpError(statusOf[error.code], error.message, headers);
  }
  const status = (error as { status?: unknown; expose?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose) {
    return new HttpError(status, (error as Error).message);
  }
  return new HttpError(500, 'the server failed to answer this request; the failure is in its log');
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}
