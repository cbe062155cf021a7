/**
 * The JSON-LD contexts that ship with Lodestone, and the URLs that name them: today schema.org's,
 * under every spelling pages use. A JSON-LD text that refers to one by URL, wherever `@context`
 * appears, gets the bundled context inlined in its place, so the parser never needs the network;
 * every other remote context is left for the parser to refuse. Pure but for the one lazy read of
 * schema-org-context.ts.
 */
import { LodestoneError } from '../errors.js';
import { schemaOrgContext, type JsonObject } from './schema-org-context.js';
import { JSONLD } from './media-types.js';

// http or https, with or without the trailing slash, or the context document itself.
const SCHEMA_ORG = /^https?:\/\/schema\.org(?:\/(?:docs\/jsonldcontext\.json(?:ld)?)?)?$/;

// Each inlined copy adds the context (about 10 KB) to the text the parser reads: this bounds it.
export const MAX_INLINED = 64;

/** The bundled context that `url` names, if Lodestone ships one. */
export function bundledContext(url: string): JsonObject | undefined {
  return SCHEMA_ORG.test(url) ? schemaOrgContext() : undefined;
}

/**
 * `text` with every `@context` value (or array member) that names a bundled context replaced by
 * that context: at the top, in nested node objects, and in scoped contexts of term definitions.
 * The content of `@value` is data and is left alone. Text that is not JSON, or names no bundled
 * context, is returned as it is, for the parser to judge.
 */
export function inlineBundledContexts(text: string): string {
  if (!text.includes('schema.org') || !text.includes('@context')) return text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text;
  }
  let inlined = 0;
  const inline = (value: unknown): unknown => {
    const context = typeof value === 'string' ? bundledContext(value) : undefined;
    if (!context) return value;
    if (++inlined > MAX_INLINED) {
      throw new LodestoneError('SyntaxError', `invalid ${JSONLD}: more than ${MAX_INLINED} references to the bundled schema.org context; give it once, in the top-level @context`);
    }
    return context;
  };
  // Iterative: a body may nest as deep as it is long.
  const pending: unknown[] = [json];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const object = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(object)) {
      if (key === '@value') continue;
      if (key === '@context') object[key] = Array.isArray(value) ? value.map(inline) : inline(value);
      // The original value: its inline contexts may hold scoped ones; an inlined context holds none.
      if (value !== null && typeof value === 'object') pending.push(value);
    }
  }
  if (inlined === 0) return text;
  try {
    return JSON.stringify(json);
  } catch {
    throw new LodestoneError('SyntaxError', 'invalid application/ld+json: nested too deeply');
  }
}
