/**
 * `<base>ns` (SPEC §4.7): the namespace ontology of the dataspace's pair (ontology/namespace.ts).
 * GET and HEAD without a query answer the asserted ontology graph in any RDF format, with an ETag
 * (graph-reply.ts); `?query=` (GET, or POST as a form or `application/sparql-query`: the SPARQL
 * 1.1 Protocol, as `<base>sparql` reads it) runs over the ontology with RDFS entailment
 * materialised, in the ontology's query worker, stopped at the server's SPARQL timeout. Updates
 * answer 405, whichever way they are sent. Public on end-user dataspaces by the default
 * authorizations; results are kept by the ontology (per version, query, format and base).
 */
import { LodestoneError } from '../errors.js';
import { writableTypes } from '../rdf/formats.js';
import { modesOnEndpoint, requireMode } from './authorize.js';
import { mediaTypeOf } from './body.js';
import { SPARQL_UPDATE, notAcceptable } from './document-read.js';
import { contentVersion, sendGraph } from './graph-reply.js';
import { acceptOf, negotiate } from './negotiate.js';
import { contentTypeOf } from './representations.js';
import { askBody, protocolRequest, shapeOf } from './sparql.js';
import { resultTypes } from '../rdf/sparql-results.js';
import type { Context } from './state.js';

const ALLOW = 'GET, HEAD, POST, OPTIONS';
const refuseUpdate = () => new LodestoneError('MethodNotAllowed', 'the namespace ontology is read-only: edit its documents in the admin dataspace (or the packages in settings)', { allow: ALLOW });

/** GET, HEAD and POST of `<base>ns`: the route table's handler. */
export async function namespaceOntology(ctx: Context): Promise<void> {
  const { runtime, agent, served } = ctx.state;
  const base = runtime.documents.base;
  const url = base + 'ns';
  requireMode(await modesOnEndpoint(runtime.access, url, agent), 'Read', agent, url);
  const ontology = runtime.ontology;
  if (!ontology) throw new LodestoneError('NotFound', `${url}: this dataspace has no namespace ontology`);
  const params = new URLSearchParams(ctx.querystring);
  if (params.has('update') || (ctx.method === 'POST' && mediaTypeOf(ctx) === SPARQL_UPDATE)) throw refuseUpdate();
  if (ctx.method !== 'POST' && !params.has('query')) {
    const closure = await ontology.current();
    return sendGraph(ctx, url, contentVersion('ns', closure.ntriples), closure.ntriples);
  }
  const request = await protocolRequest(ctx, served.bodyLimit, refuseUpdate);
  const shape = await shapeOf(served, request.query, base, refuseUpdate);
  const offered = shape.graphResult ? writableTypes : resultTypes;
  const type = negotiate(acceptOf(ctx.headers, ctx.querystring), offered);
  ctx.vary('Accept');
  if (!type) throw notAcceptable(offered);
  const closure = await ontology.current();
  const result = await ontology.query(closure, shape.projected ?? request.query, type, base).catch((error: Error) => {
    if (error instanceof LodestoneError) throw error;
    throw new LodestoneError('BadQuery', `the query failed: ${error.message}`);
  });
  ctx.type = contentTypeOf(type);
  ctx.body = shape.ask ? askBody(String(result), type) : String(result);
}
