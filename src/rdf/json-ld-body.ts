/**
 * JSON-LD request bodies read without loss (issue 25). A JSON-LD processor drops what does not
 * convert to RDF (an IRI or language tag that is not well-formed, a key that maps to no IRI, a value
 * floating free, a base direction), so a body could be stored without some of its values and
 * answered 201. Here jsonld.js converts the body to N-Quads with an event handler that turns every
 * such warning into a 400 naming the value (its "safe mode", less the two drops that lose nothing:
 * an empty object, a node with only `@id`); no remote context is fetched (the ones that ship are
 * inlined first, json-ld-contexts.ts). Oxigraph then reads the N-Quads, and refuses what it would not
 * store. Pure: no I/O.
 */
import type jsonld from 'jsonld';
import { LodestoneError } from '../errors.js';
import { inlineBundledContexts } from './json-ld-contexts.js';
import { JSONLD, NQUADS } from './media-types.js';

let processor: Promise<typeof jsonld> | undefined;

/**
 * jsonld.js, loaded the first time a JSON-LD body or answer needs it: with its HTTP client it is
 * more than half of what a thread that parses RDF would load at its start (a tenth of a second of a
 * core, paid by every worker and index lane started before), and most threads never see JSON-LD.
 */
export function jsonLdProcessor(): Promise<typeof jsonld> {
  processor ??= import('jsonld').then((loaded) => loaded.default);
  return processor;
}

/** jsonld.js expands recursively: past a few hundred levels it would overflow the stack. */
export const MAX_JSON_LD_DEPTH = 256;
/** Warnings about what converts to no triple at all, so that dropping it loses nothing. */
const HARMLESS = new Set(['empty object', 'object with only @id']);
const REMOTE_CONTEXT = 'remote JSON-LD @context documents are not fetched; inline the context (only schema.org\'s ships with the server)';

interface JsonLdEvent {
  code: string;
  level: string;
  message: string;
  details?: Record<string, unknown>;
}

function refusal(reason: string, data: Record<string, unknown> = {}): LodestoneError {
  return new LodestoneError('SyntaxError', `invalid ${JSONLD}: ${reason}`, data);
}

/** The sentence for a value the processor would drop, naming it. */
function dropped(event: JsonLdEvent): LodestoneError {
  const details = event.details ?? {};
  const named = ['language', 'id', 'type', 'property', 'vocab', 'relativeIri', 'value'].map((key) => details[key]).find((value) => value !== undefined);
  const value = named === undefined ? '' : ` (${JSON.stringify(named).slice(0, 200)})`;
  const what = event.code === 'rdfDirection not set' ? 'a base direction (@direction) has no place in RDF 1.1' : `${event.message.replace(/\.$/, '')}${value}`;
  return refusal(`${what}; a JSON-LD processor would leave it out, and nothing of a body is left out: correct or remove it`, { code: event.code });
}

/** The line and column of a JSON.parse error's position, for the client. */
function jsonError(text: string, error: Error): LodestoneError {
  const at = /position (\d+)/.exec(error.message);
  if (!at) return refusal(error.message);
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return refusal(error.message, { line, column: before.length - before.lastIndexOf('\n') });
}

/**
 * 400 when `json` nests deeper than MAX_JSON_LD_DEPTH objects and arrays, or names a context by URL
 * (at the top, nested, scoped in a term, or in `@import`: jsonld.js reports some of these without
 * saying why). Walked without recursion; the content of `@value` is data, left alone.
 */
function refuseBeforeProcessing(json: unknown): void {
  const pending: Array<[unknown, number]> = [[json, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_LD_DEPTH) throw refusal(`it nests deeper than ${MAX_JSON_LD_DEPTH} objects and arrays`);
    if (Array.isArray(value)) {
      for (const child of value) pending.push([child, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === '@value') continue;
      const named = key === '@context' ? [child].flat() : key === '@import' ? [child] : [];
      if (named.some((context) => typeof context === 'string')) throw refusal(REMOTE_CONTEXT);
      pending.push([child, depth + 1]);
    }
  }
}

/** The body as N-Quads, every value of it converted; a 400 naming the first that does not. */
export async function jsonLdToNQuads(text: string, base: string): Promise<string> {
  const source = inlineBundledContexts(text);
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw source === text ? jsonError(text, error as Error) : refusal((error as Error).message);
  }
  refuseBeforeProcessing(json);
  try {
    const options = {
      base,
      format: NQUADS,
      documentLoader: () => Promise.reject(new Error(REMOTE_CONTEXT)),
      eventHandler: ({ event, next }: { event: JsonLdEvent; next: () => void }) => {
        if (event.level === 'warning' && !HARMLESS.has(event.code)) throw dropped(event);
        next();
      },
    };
    return (await (await jsonLdProcessor()).toRDF(json as jsonld.JsonLdDocument, options as jsonld.Options.ToRdf)) as unknown as string;
  } catch (error) {
    if (error instanceof LodestoneError) throw error;
    const failure = error as { name?: string; message?: string; details?: { code?: string; event?: JsonLdEvent; cause?: unknown } };
    if (failure.details?.event) throw dropped(failure.details.event); // jsonld.js wraps what the handler threw
    if (failure.details?.code === 'loading remote context failed' || failure.name === 'jsonld.InvalidUrl') throw refusal(REMOTE_CONTEXT);
    if (error instanceof RangeError) throw refusal(`it nests too deeply to be read`);
    throw refusal(failure.message ?? String(error));
  }
}
