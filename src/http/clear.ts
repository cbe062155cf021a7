/**
 * `<admin>clear` (SPEC §4.7): POST, as a form, forgets the namespace ontology's cached imports and
 * rebuilds it on next use; with `uri=<ontology>` it forgets that ontology alone, has the proxy
 * caches drop their entries for it (the purge hooks of ontology/namespace.ts) and rebuilds the
 * ontology from the admin dataspace at once. Answers 303 to the `Referer` when it is a page of this
 * server (a form's page), else 200. For the agents allowed to write it: the owners, by the default
 * authorizations.
 */
import { FORM } from '../rdf/media-types.js';
import { LodestoneError } from '../errors.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { runtimeFor } from './locate.js';
import type { Context } from './state.js';

export async function clearOntologies(ctx: Context): Promise<void> {
  const { runtime, served } = ctx.state;
  const body = decodeUtf8(await readBody(ctx.req, served.bodyLimit));
  if (body !== '' && mediaTypeOf(ctx) !== FORM) throw new LodestoneError('UnsupportedMediaType', `send the form as ${FORM} (uri=<ontology>, or nothing to clear them all)`);
  const uris = new URLSearchParams(body).getAll('uri');
  if (uris.length > 1) throw new LodestoneError('BadRequest', 'name one ontology with uri=, or none to clear them all');
  const uri = uris[0];
  if (uri !== undefined && !/^https?:\/\/[^\s]+$/.test(uri)) throw new LodestoneError('BadRequest', `uri= names an ontology by its http or https IRI, not ${JSON.stringify(uri.slice(0, 80))}`);
  await runtime.ontology?.clear(uri);
  const referer = ctx.get('Referer');
  if (referer && URL.canParse(referer) && runtimeFor(served.runtimes, referer)) {
    ctx.status = 303;
    ctx.set('Location', referer);
  } else ctx.status = 200;
  emptyBody(ctx);
}
