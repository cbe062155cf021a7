/**
 * Conditional requests (RFC 9110 §13) with the conventions of SPEC §4.6: a write to an existing
 * document must carry `If-Match` or `If-None-Match: *` (428 otherwise, and an empty If-Match counts
 * as none); ETags are strong and per representation. If-Match compares strongly, If-None-Match
 * weakly (RFC 9110 §8.8.3.2, §13.1.1–2: `W/"x"` matches `"x"` there). A 412 says why the ETag did
 * not match: not an ETag at all, a weak one, the ETag of another representation of the document,
 * or one the document has moved on from. A write carries its conditions as a value
 * (`WriteConditions`, as the Community Solid Server's BasicConditions), which the document service
 * judges under its lock against the version it is about to replace; a write authorized to create
 * only carries that too.
 */
import { sameContent } from '../entity-tags.js';
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

/** If-Match: strong comparison, a weak tag never matches; an encoded variant's tag is the same content. */
function matches(tags: string[], current: string): boolean {
  return tags.some((tag) => tag === '*' || sameContent(tag, current));
}

/** If-None-Match: weak comparison, `W/"x"` matches `"x"`; `current` and the `variants` sent for this request all match. */
function matchesWeakly(tags: string[], current: string, variants: readonly string[] = []): boolean {
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return tags.some((tag) => tag === '*' || opaque(tag) === opaque(current) || variants.some((variant) => opaque(tag) === opaque(variant)));
}

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
/** The form of the ETags this server makes (representations.ts): a quoted base64url 160-bit HMAC, with the suffix of an encoded variant or not. */
const OWN_TAG = /^"[A-Za-z0-9_-]{27}(-gzip|-br)?"$/;

/**
 * Why none of `tags` is the current ETag, in a sentence for the client. `others` gives the ETags
 * of the document's other representations, by media type.
 */
export function mismatch(tags: string[], others: ReadonlyMap<string, string> | undefined): string {
  const tag = tags.find((t) => t !== '*') ?? tags[0]!;
  if (!ENTITY_TAG.test(tag)) return `If-Match holds ${JSON.stringify(tag.slice(0, 80))}, which is not an ETag: send the ETag exactly as the server sent it, double quotes included`;
  if (tag.startsWith('W/')) return 'If-Match holds a weak ETag, and If-Match compares strongly: send the ETag the server sent, without W/';
  for (const [type, other] of others ?? []) {
    if (tags.some((tag) => sameContent(tag, other))) return `the ETag in If-Match is the one of the ${type} representation, and this request's Accept selects another: a validator holds for the representation it was read in, so send the Accept of that read (or read again with this Accept)`;
  }
  if (!OWN_TAG.test(tag)) return 'the ETag in If-Match is not one this server makes: GET the document and send its ETag';
  return 'the document has changed since the ETag in If-Match was read';
}

/**
 * For a write. `current` is the ETag of the existing document in the representation the write's
 * Accept selects, or undefined when the document does not exist. Throws 412 (with the current ETag)
 * or 428; returns when the write may go ahead.
 */
export function checkWrite(conditions: Conditions, current: string | undefined, others?: () => ReadonlyMap<string, string>): void {
  const { ifMatch, ifNoneMatch } = conditions;
  // RFC 9110 §13.2.2 step 1: If-Match
  if (ifMatch) {
    if (current === undefined) throw new LodestoneError('PreconditionFailed', 'the document does not exist');
    if (!matches(ifMatch, current)) throw new LodestoneError('PreconditionFailed', mismatch(ifMatch, others?.()), { etag: current });
    return;
  }
  // step 3: If-None-Match (SPEC §4.6.5: `*` against an existing document is 412)
  if (ifNoneMatch) {
    if (current !== undefined && matchesWeakly(ifNoneMatch, current)) {
      throw new LodestoneError('PreconditionFailed', 'the document exists (If-None-Match)', { etag: current });
    }
    return;
  }
  // SPEC §4.6.1: a write to an existing document must carry a precondition
  if (current !== undefined) {
    throw new LodestoneError('PreconditionRequired', 'this document exists: send If-Match with the ETag you read, or If-None-Match: * to create only', { etag: current });
  }
}

/**
 * For GET and HEAD: 'ok', 'not-modified' (304) or 'failed' (412), RFC 9110 §13.2.2. `variants`: the
 * ETags of the encoded variants this request may be sent (If-None-Match matches those too).
 */
export function checkRead(conditions: Conditions, current: string, variants: readonly string[] = []): 'ok' | 'not-modified' | 'failed' {
  if (conditions.ifMatch && !matches(conditions.ifMatch, current)) return 'failed';
  if (conditions.ifNoneMatch && matchesWeakly(conditions.ifNoneMatch, current, variants)) return 'not-modified';
  return 'ok';
}

/** How the validator of a document version is made: its ETag in the representation the write's Accept selects, and in the others. */
export interface Validator {
  of(blobId: string): string;
  others(blobId: string): ReadonlyMap<string, string>;
}

/** The preconditions of one write, judged where the document lives (document-service.ts) against its current version. */
export class WriteConditions {
  constructor(
    readonly conditions: Conditions,
    private readonly validator: Validator,
    /** The refusal of a write allowed only to create, should the document exist when it is judged. */
    private readonly onlyCreates?: () => LodestoneError,
  ) {}

  /** Throws 412 or 428 unless the write may replace `current` (a blob id; undefined: no document), or the refusal of a write that may only create. */
  check(current: string | undefined): void {
    if (current !== undefined && this.onlyCreates) throw this.onlyCreates();
    checkWrite(this.conditions, current === undefined ? undefined : this.validator.of(current), () => this.validator.others(current!));
  }

  /**
   * These conditions for a write authorized to create only (a PUT by Append on the parent, SPEC
   * §5): a document made meanwhile (while its body came) is refused with `refusal`, the answer the
   * write would have had, had that document been there when it was authorized.
   */
  creatingOnly(refusal: () => LodestoneError): WriteConditions {
    return new WriteConditions(this.conditions, this.validator, refusal);
  }

  /** The validator of the version a write leaves. */
  tagOf(blobId: string): string {
    return this.validator.of(blobId);
  }
}

/** `If-None-Match: *`, for a write of the server's own that creates a document only if there is none (a 412 otherwise). */
export const createOnly = new WriteConditions({ ifMatch: undefined, ifNoneMatch: ['*'] }, { of: (blobId) => `"${blobId}"`, others: () => new Map() });
