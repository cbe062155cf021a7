/**
 * `<base>ns` (SPEC §4.7): the namespace ontology of the dataspace's pair (ontology/namespace.ts).
 * GET and HEAD without a query answer the asserted ontology graph in any RDF format, with an ETag
 * (graph-reply.ts); `?query=` (GET, or POST as a form or `application/sparql-query`: the SPARQL
 * 1.1 Protocol, as `<base>sparql` reads it) runs over the ontology with RDFS entailment
 * materialised, in the ontology's query worker, stopped at the server's SPARQL timeout. Updates
 * answer 405, whichever way they are sent. Public on end-user dataspaces by the default
 * authorizations; results are kept by the ontology (per version, query, format and base).
 */
import { HTML, SPARQL_UPDATE } from '../rdf/media-types.js';
import { LodestoneError } from '../errors.js';
import { mediaTypeOf } from './body.js';
import { notAcceptable } from './document-read.js';
import { contentVersion, graphReply } from './graph-reply.js';
import { systemGraphPage } from './document-pages.js';
import { choose, NARROWER } from './offers.js';
import { contentTypeOf } from './representations.js';
import { askBody, protocolRequest, shapeOf } from './sparql.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';

const ALLOW = 'GET, HEAD, POST, OPTIONS';
const refuseUpdate = () => new LodestoneError('MethodNotAllowed', 'the namespace ontology is read-only: edit its documents in the admin dataspace (or the packages in settings)', { allow: ALLOW });

/** GET, HEAD and POST of `<base>ns`: the route table's handler. */
export async function namespaceOntology(ctx: Context, { accept, type: negotiated }: Decided): Promise<Reply | void> {
  const { runtime, served } = ctx.state;
  const base = runtime.documents.base;
  const url = base + 'ns';
  const ontology = runtime.ontology;
  if (!ontology) throw new LodestoneError('NotFound', `${url}: this dataspace has no namespace ontology`);
  const params = new URLSearchParams(ctx.querystring);
  if (params.has('update') || (ctx.method === 'POST' && mediaTypeOf(ctx) === SPARQL_UPDATE)) throw refuseUpdate();
  if (ctx.method !== 'POST' && !params.has('query')) {
    const closure = await ontology.current();
    if (negotiated === HTML) return systemGraphPage(ctx, url, closure.ntriples); // a browser: the ontology drawn as a document
    const type = choose(NARROWER.rdf, accept);
    if (!type) throw notAcceptable(NARROWER.rdf.types, { Vary: 'Accept' });
    return graphReply(ctx, url, contentVersion('ns', closure.ntriples), closure.ntriples, type);
  }
  const request = await protocolRequest(ctx, served.bodyLimit, refuseUpdate);
  const shape = await shapeOf(served, request.query, base, refuseUpdate);
  const offer = shape.graphResult ? NARROWER.graphs : NARROWER.results;
  const type = choose(offer, accept);
  if (!type) throw notAcceptable(offer.types);
  const closure = await ontology.current();
  const result = await ontology.query(closure, shape.projected ?? request.query, type, base).catch((error: Error) => {
    if (error instanceof LodestoneError) throw error;
    throw new LodestoneError('BadQuery', `the query failed: ${error.message}`);
  });
  ctx.type = contentTypeOf(type);
  ctx.body = shape.ask ? askBody(String(result), type) : String(result);
}
