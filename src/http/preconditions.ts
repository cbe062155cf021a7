/**
 * Conditional requests (RFC 9110 §13) with the conventions of SPEC §4.6: a write to an existing
 * document must carry `If-Match` or `If-None-Match: *` (428 otherwise, and an empty If-Match counts
 * as none); ETags are strong and per representation, compared strongly (RFC 9110 §8.8.3.2).
 */
import { LodestoneError } from '../errors.js';

export interface Conditions {
  ifMatch: string[] | undefined;
  ifNoneMatch: string[] | undefined;
}

function list(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const items = header.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length === 0 ? undefined : items;
}

export function conditionsOf(headers: { 'if-match'?: string; 'if-none-match'?: string }): Conditions {
  return { ifMatch: list(headers['if-match']), ifNoneMatch: list(headers['if-none-match']) };
}

function matches(tags: string[], current: string): boolean {
  return tags.some((tag) => tag === '*' || tag === current); // strong comparison: W/ never equals
}

/**
 * For a write. `current` is the ETag of the existing document in the representation the write's
 * Accept selects, or undefined when the document does not exist. Throws 412 (with the current ETag)
 * or 428; returns when the write may go ahead.
 */
export function checkWrite(conditions: Conditions, current: string | undefined): void {
  const { ifMatch, ifNoneMatch } = conditions;
  // RFC 9110 §13.2.2 step 1: If-Match
  if (ifMatch) {
    if (current === undefined || !matches(ifMatch, current)) {
      throw new LodestoneError('PreconditionFailed', current === undefined ? 'the document does not exist' : 'the document has changed since the ETag in If-Match was read', current ? { etag: current } : {});
    }
    return;
  }
  // step 3: If-None-Match (SPEC §4.6.5: `*` against an existing document is 412)
  if (ifNoneMatch) {
    if (current !== undefined && matches(ifNoneMatch, current)) {
      throw new LodestoneError('PreconditionFailed', 'the document exists (If-None-Match)', { etag: current });
    }
    return;
  }
  // SPEC §4.6.1: a write to an existing document must carry a precondition
  if (current !== undefined) {
    throw new LodestoneError('PreconditionRequired', 'this document exists: send If-Match with the ETag you read, or If-None-Match: * to create only', { etag: current });
  }
}

/** For GET and HEAD: 'ok', 'not-modified' (304) or 'failed' (412), RFC 9110 §13.2.2. */
export function checkRead(conditions: Conditions, current: string): 'ok' | 'not-modified' | 'failed' {
  if (conditions.ifMatch && !matches(conditions.ifMatch, current)) return 'failed';
  if (conditions.ifNoneMatch && matches(conditions.ifNoneMatch, current)) return 'not-modified';
  return 'ok';
}
