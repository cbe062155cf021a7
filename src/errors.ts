/**
 * The one error type of Lodestone, below HTTP and in it. Every refusal carries a `code` that the HTTP
 * layer maps to a status in one table (src/http/http-error.ts), and optional `data` (line and column
 * of a syntax error, the path that was refused, the `allow` list of a 405, the `etag` of a 412, the
 * `retryAfter` seconds of a 503 or of a 429, which a quota refuses with).
 * Messages are written for the person who sent the request: they say what was wrong.
 */

export type ErrorCode =
  | 'BadRequest'
  | 'Forbidden'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'TooLarge'
  | 'BadGateway'
  | 'GatewayTimeout'
  | 'InvalidPath'
  | 'SyntaxError'
  | 'TooManyBlankNodes'
  | 'CanonicalizationLimit'
  | 'RefConflict'
  | 'LockTimeout'
  | 'NotFound'
  | 'Corrupt'
  | 'PreconditionFailed'
  | 'PreconditionRequired'
  | 'MethodNotAllowed'
  | 'Conflict'
  | 'ConstraintViolation'
  | 'InvalidUpdate'
  | 'Unauthenticated'
  | 'QueryTimeout'
  | 'BadQuery'
  | 'WorkLimit'
  | 'Busy'
  | 'IndexUnavailable'
  | 'TooManyRequests';

export class LodestoneError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'LodestoneError';
    this.code = code;
    this.data = data;
  }
}

export function isLodestoneError(error: unknown, code?: ErrorCode): error is LodestoneError {
  return error instanceof LodestoneError && (code === undefined || error.code === code);
}
