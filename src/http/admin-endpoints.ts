/**
 * The admin dataspace's endpoints of access control (SPEC §4.7, issue 4), the route table's
 * handlers: `sign%20up` (WebID-TLS signup returning a PKCS#12 certificate), `access` (the asking
 * agent's authorizations on a document) and `access/request` (an access request stored for the
 * owners to grant). Signups and access requests are counted against their quotas (quotas.ts)
 * before any work; a signup's certificate is made in the signup pool.
 */
import { FORM, NTRIPLES, PKCS12, TURTLE } from '../rdf/media-types.js';
import { randomUUID } from 'node:crypto';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import { createSignup, parseSignup } from '../auth/signup.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { serialiseQuads } from '../rdf/formats.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { documentPathIn, normalPath, runtimeFor } from './locate.js';
import { clientOf } from './quotas.js';
import { contentTypeOf } from './representations.js';
import type { Reply } from './reply.js';
import type { Context, DataspaceRuntime, Decided } from './state.js';
import { frameOf, sendPage } from './html.js';
import { signupPage } from '../pages/signup-page.js';

const { namedNode, literal, quad, blankNode } = DataFactory;


export async function signup(ctx: Context): Promise<void> {
  const { runtime, agent } = ctx.state;
  const endpoint = runtime.documents.base + 'sign%20up';
  if (ctx.method !== 'POST') {
    const frame = await frameOf(ctx);
    return sendPage(ctx, 200, frame.language, signupPage(frame, endpoint));
  }
  if (mediaTypeOf(ctx) !== FORM) throw new LodestoneError('UnsupportedMediaType', `send the signup as ${FORM} (name, email, password)`);
  const { served } = ctx.state;
  const request = parseSignup(decodeUtf8(await readBody(ctx.req, served.bodyLimit)), FORM);
  const giveBack = served.quotas.signup(agent, clientOf(ctx.req));
  // a new agent delegates to the secretary, as the owner does: its proxied requests go as the secretary on its behalf (SPEC §4.5.9)
  const result = await createSignup(request, runtime.documents.base, served.outbound.secretary?.webId, served.signupCredentials).catch((error: unknown) => {
    if (isLodestoneError(error, 'Busy')) giveBack(); // refused before any work: it was no signup
    throw error;
  });
  // the new agent owns its documents (acl:owner): it may edit its own profile
  for (const [path, text] of [[result.keyPath, result.keyTurtle], [result.agentPath, result.agentTurtle]] as const) {
    await runtime.documents.write({ method: 'PUT', relativePath: path, agent: result.webId, body: { text, mediaType: TURTLE } });
  }
  ctx.status = 201;
  ctx.set('Location', runtime.documents.base + result.agentPath);
  ctx.set('Content-Disposition', 'attachment; filename="cert.p12"');
  ctx.type = PKCS12;
  ctx.body = result.pkcs12;
}

/** The document a `?this=` names, in a dataspace this server holds. */
function documentOf(ctx: Context, url: string | undefined): { runtime: DataspaceRuntime; relativePath: string; url: string } {
  if (!url) throw new LodestoneError('BadRequest', 'name the document with ?this=<document URL>');
  const normal = normalPath(url); // as a request to it is located (locate.ts)
  const runtime = runtimeFor(ctx.state.served.runtimes, normal);
  if (!runtime || runtime.access !== ctx.state.runtime.access) throw new LodestoneError('BadRequest', `${url} is not a document of this server`);
  const relativePath = documentPathIn(ctx.state.served.runtimes, runtime, normal.slice(runtime.documents.base.length));
  return { runtime, relativePath, url: runtime.documents.base + relativePath };
}

export async function accessEndpoint(ctx: Context, { type }: Decided): Promise<Reply> {
  const { runtime: admin, agent } = ctx.state;
  const target = documentOf(ctx, new URLSearchParams(ctx.querystring).get('this') ?? undefined);
  const quads: Quad[] = [];
  const document = await admin.access.targetFor(target.runtime, target.relativePath);
  const policy = await admin.access.policy();
  for (const iri of policy.authorizationsFor(agent, document)) quads.push(...admin.access.describe(iri));
  // the rights of the document's acl:owner come from no authorization: describe them as one
  if (agent && document.owners.includes(agent)) {
    const owner = blankNode('owner');
    quads.push(quad(owner, namedNode(RDF_TYPE), namedNode(ns.acl + 'Authorization')), quad(owner, namedNode(ns.acl + 'agent'), namedNode(agent)), quad(owner, namedNode(ns.acl + 'accessTo'), namedNode(target.url)));
    for (const mode of ['Read', 'Write', 'Append'] as const) quads.push(quad(owner, namedNode(ns.acl + 'mode'), namedNode(ns.acl + mode)));
  }
  return { contentType: contentTypeOf(type!), body: () => serialiseQuads(quads, type!) };
}

export async function accessRequest(ctx: Context): Promise<void> {
  const { runtime: admin } = ctx.state;
  const agent = ctx.state.agent!; // the row needs an agent: dispatch refused anonymous ones
  if (mediaTypeOf(ctx) !== FORM) throw new LodestoneError('UnsupportedMediaType', `send the request as ${FORM} (this=<document URL>, mode=Read|Write|Append)`);
  const form = new URLSearchParams(decodeUtf8(await readBody(ctx.req, ctx.state.served.bodyLimit)));
  const target = documentOf(ctx, form.get('this') ?? undefined);
  const modes = form.getAll('mode');
  if (modes.length === 0 || modes.some((m) => !['Read', 'Write', 'Append', 'Control'].includes(m))) throw new LodestoneError('ConstraintViolation', 'name the modes asked for: mode=Read, Write, Append or Control');
  ctx.state.served.quotas.accessRequest(agent, clientOf(ctx.req));
  const path = `acl/access-requests/${randomUUID()}/`;
  const url = admin.documents.base + path;
  const request = namedNode(`${url}#this`);
  const quads = [
    quad(namedNode(url), namedNode(ns.foaf + 'primaryTopic'), request),
    quad(request, namedNode(RDF_TYPE), namedNode(ns.lacl + 'AuthorizationRequest')),
    quad(request, namedNode(ns.dct + 'title'), literal(`Access request from ${agent}`)),
    quad(request, namedNode(ns.lacl + 'requestAgent'), namedNode(agent)),
    quad(request, namedNode(ns.lacl + 'requestAccessTo'), namedNode(target.url)),
    ...modes.map((m) => quad(request, namedNode(ns.lacl + 'requestMode'), namedNode(ns.acl + m))),
  ];
  const text = await serialiseQuads(quads, NTRIPLES);
  await admin.documents.write({ method: 'PUT', relativePath: path, agent, body: { text, mediaType: NTRIPLES } });
  ctx.status = 201;
  ctx.set('Location', url);
  emptyBody(ctx);
}

