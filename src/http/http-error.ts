/**
 * The one place HTTP statuses are decided: each code of LodestoneError (src/errors.ts, thrown below
 * HTTP and in it alike) maps to a status, with the headers that belong to the error (`Allow` with
 * 405, `ETag` with 412, `Retry-After` with 503 and 429, and any `headers` the thrower set), which the
 * error middleware keeps on the response.
 */
import { STATUS_CODES } from 'node:http';
import { LodestoneError, type ErrorCode } from '../errors.js';

/** A refusal as it goes out: status, the sentence for the client, headers. */
export interface HttpFailure {
  status: number;
  message: string;
  headers: Record<string, string>;
  /** More of the error as N-Triples, sent beside the error resource (a SHACL validation report). */
  report?: string;
}

const statusOf: Record<ErrorCode, number> = {
  BadRequest: 400,
  Forbidden: 403,
  NotAcceptable: 406,
  UnsupportedMediaType: 415,
  TooLarge: 413,
  BadGateway: 502,
  GatewayTimeout: 504,
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
  IndexUnavailable: 503,
  TooManyRequests: 429, // RFC 6585 §4: a quota of the agent or the client address, with Retry-After
};

/** Any thrown value as an HttpFailure; unknown errors become a 500 that says nothing of internals. */
export function toHttpError(error: unknown): HttpFailure {
  if (error instanceof LodestoneError) {
    const data = error.data;
    const headers: Record<string, string> = { ...(data.headers as Record<string, string> | undefined) };
    if (typeof data.etag === 'string') headers.ETag = data.etag;
    if (typeof data.allow === 'string') headers.Allow = data.allow;
    if (error.code === 'LockTimeout' || error.code === 'RefConflict') headers['Retry-After'] = '1';
    if (typeof data.retryAfter === 'number') headers['Retry-After'] = String(data.retryAfter);
    return { status: statusOf[error.code], message: error.message, headers, ...(typeof data.report === 'string' ? { report: data.report } : {}) };
  }
  const status = (error as { status?: unknown; expose?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose) {
    return { status, message: (error as Error).message, headers: {} };
  }
  return { status: 500, message: 'the server failed to answer this request; the failure is in its log', headers: {} };
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}
