/**
 * System endpoints of SPEC §4.7 that belong to access control (issue 4): `sitemap.xml` and
 * `robots.txt` in every dataspace (the sitemap lists what the public read rules of the dataspace's
 * own admin cover; none in an admin dataspace), and in the admin dataspace `sign%20up` (WebID-TLS
 * signup returning a PKCS#12 certificate), `access` (the asking agent's authorizations on a
 * document), `access/request` (an access request stored for the owners to grant), and the
 * OpenID Connect routes of oauth2.ts.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import contentType from 'content-type';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import { createSignup, parseSignup } from '../auth/signup.js';
import { ns } from '../rdf/namespaces.js';
import { serialiseQuads, writableTypes } from '../rdf/formats.js';
import { canonicalDocumentPath } from '../store/paths.js';
import { modesOnEndpoint, requireMode } from './authorize.js';
import { decodeUtf8, readBody } from './body.js';
import { HttpError } from './http-error.js';
import { oidcCallback, oidcLogin, oidcLogout } from './oauth2.js';
import { acceptOf, negotiate } from './negotiate.js';
import { runtimeFor } from './app.js';
import type { DataspaceRuntime, State } from './state.js';

const { namedNode, literal, quad, blankNode } = DataFactory;
const FORM = 'application/x-www-form-urlencoded';

export interface SystemOptions {
  runtimes: readonly DataspaceRuntime[];
  bodyLimit: number;
}

type Handler = (ctx: Koa.ParameterizedContext<State>) => Promise<void>;

function isAdmin(runtime: DataspaceRuntime): boolean {
  return runtime.role === 'admin';
}

/** The handler of a system endpoint at `relative` in `runtime`, or undefined for a document path. */
export function systemEndpoint(options: SystemOptions, runtime: DataspaceRuntime, relative: string): Handler | undefined {
  if (relative === 'sitemap.xml') return (ctx) => sitemap(ctx);
  if (relative === 'robots.txt') return (ctx) => robots(ctx);
  if (!isAdmin(runtime)) return undefined;
  if (relative === 'sign%20up') return (ctx) => signup(ctx, options);
  if (relative === 'access') return (ctx) => access(ctx, options);
  if (relative === 'access/request') return (ctx) => accessRequest(ctx, options);
  const oauth = /^oauth2\/(login|authorize)\/([^/]*)$/.exec(relative);
  if (oauth) return oauth[1] === 'login' ? (ctx) => oidcLogin(ctx, oauth[2]!) : (ctx) => oidcCallback(ctx, oauth[2]!);
  if (relative === 'oauth2/logout') return (ctx) => oidcLogout(ctx);
  return undefined;
}

export function only(ctx: Koa.Context, allow: string): void {
  if (!allow.split(', ').includes(ctx.method)) throw new HttpError(405, `${ctx.method} is not supported here`, { Allow: allow });
}

/** The documents anonymous agents may read (empty for an admin dataspace, which has no sitemap). */
async function publicDocuments(runtime: DataspaceRuntime): Promise<string[]> {
  if (isAdmin(runtime)) return [];
  return (await runtime.access.readableGraphs(runtime, undefined))?.graphs ?? [];
}

const modifiedOf = new Map<string, string | undefined>();

/** dct:modified of a document, from its canonical N-Triples (cached per blob). */
async function lastModified(runtime: DataspaceRuntime, url: string): Promise<string | undefined> {
  const blobId = runtime.documents.blobId(url.slice(runtime.dataspace.base.length));
  if (!blobId) return undefined;
  if (!modifiedOf.has(blobId)) {
    const prefix = `<${url}> <${ns.dct}modified> "`;
    const line = (await runtime.dataspace.store.readBlob(blobId)).toString('utf8').split('\n').find((l) => l.startsWith(prefix));
    if (modifiedOf.size > 50_000) modifiedOf.clear();
    modifiedOf.set(blobId, line?.slice(prefix.length, line.indexOf('"', prefix.length)));
  }
  return modifiedOf.get(blobId);
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function sitemap(ctx: Koa.ParameterizedContext<State>): Promise<void> {
  only(ctx, 'GET, HEAD');
  const { runtime } = ctx.state;
  const documents = await publicDocuments(runtime);
  if (documents.length === 0) throw new HttpError(404, isAdmin(runtime) ? 'an admin dataspace has no sitemap' : 'nothing in this dataspace is public, so it has no sitemap');
  const entries = await Promise.all(
    documents.sort().map(async (url) => {
      const modified = await lastModified(runtime, url);
      return `  <url><loc>${escapeXml(url)}</loc>${modified ? `<lastmod>${escapeXml(modified)}</lastmod>` : ''}</url>`;
    }),
  );
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

async function robots(ctx: Koa.ParameterizedContext<State>): Promise<void> {
  only(ctx, 'GET, HEAD');
  const { runtime } = ctx.state;
  const open = (await publicDocuments(runtime)).length > 0;
  ctx.type = 'text/plain';
  ctx.body = open ? `User-agent: *\nAllow: /\nSitemap: ${runtime.dataspace.base}sitemap.xml\n` : 'User-agent: *\nDisallow: /\n';
}

const SIGNUP_FORM = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head>
<body><h1>Sign up</h1>
<form method="post" enctype="${FORM}">
<label>Name <input name="name" required maxlength="200"></label>
<label>E-mail <input name="email" type="email" required></label>
<label>Certificate password <input name="password" type="password" required minlength="8"></label>
<button>Get my certificate</button>
</form>
<p>The answer is your client certificate (PKCS#12): use it with <code>curl --cert-type P12 -E cert.p12:PASSWORD</code>, or import it into your browser.</p>
</body></html>
`;

async function signup(ctx: Koa.ParameterizedContext<State>, options: SystemOptions): Promise<void> {
  only(ctx, 'GET, HEAD, POST');
  const { runtime, agent } = ctx.state;
  const endpoint = runtime.dataspace.base + 'sign%20up';
  requireMode(await modesOnEndpoint(runtime.access, endpoint, agent), ctx.method === 'POST' ? 'Append' : 'Read', agent, endpoint);
  if (ctx.method !== 'POST') {
    ctx.type = 'text/html';
    ctx.body = SIGNUP_FORM;
    return;
  }
  let type = '';
  try {
    type = contentType.parse(ctx.get('Content-Type')).type;
  } catch {
    // answered below
  }
  if (type !== FORM) throw new HttpError(415, `send the signup as ${FORM} (name, email, password)`);
  const request = parseSignup(decodeUtf8(await readBody(ctx.req, options.bodyLimit)), FORM);
  const result = createSignup(request, runtime.dataspace.base);
  // the new agent owns its documents (acl:owner): it may edit its own profile
  for (const [path, text] of [[result.keyPath, result.keyTurtle], [result.agentPath, result.agentTurtle]] as const) {
    await runtime.documents.write({ method: 'PUT', relativePath: path, agent: result.webId, body: { text, mediaType: 'text/turtle' }, precondition: () => undefined });
  }
  ctx.status = 201;
  ctx.set('Location', runtime.dataspace.base + result.agentPath);
  ctx.set('Content-Disposition', 'attachment; filename="cert.p12"');
  ctx.type = 'application/x-pkcs12';
  ctx.body = result.pkcs12;
}

/** The document a `?this=` names, in a dataspace this server holds. */
function documentOf(options: SystemOptions, ctx: Koa.ParameterizedContext<State>, url: string | undefined): { runtime: DataspaceRuntime; relativePath: string; url: string } {
  if (!url) throw new HttpError(400, 'name the document with ?this=<document URL>');
  const runtime = runtimeFor(options.runtimes, url);
  if (!runtime || runtime.access !== ctx.state.runtime.access) throw new HttpError(400, `${url} is not a document of this server`);
  const relativePath = canonicalDocumentPath(url.slice(runtime.dataspace.base.length));
  return { runtime, relativePath, url: runtime.dataspace.base + relativePath };
}

async function access(ctx: Koa.ParameterizedContext<State>, options: SystemOptions): Promise<void> {
  only(ctx, 'GET, HEAD');
  const { runtime: admin, agent } = ctx.state;
  const endpoint = admin.dataspace.base + 'access';
  requireMode(await modesOnEndpoint(admin.access, endpoint, agent), 'Read', agent, endpoint);
  const target = documentOf(options, ctx, new URLSearchParams(ctx.querystring).get('this') ?? undefined);
  const type = negotiate(acceptOf(ctx.headers, ctx.querystring), writableTypes);
  if (!type) throw new HttpError(406, `none of the requested media types is available; available: ${writableTypes.join(', ')}`);
  const quads: Quad[] = [];
  const document = await admin.access.targetFor(target.runtime, target.relativePath);
  const policy = await admin.access.policy();
  for (const iri of policy.authorizationsFor(agent, document)) quads.push(...admin.access.describe(iri));
  // the rights of the document's acl:owner come from no authorization: describe them as one
  if (agent && document.owners.includes(agent)) {
    const owner = blankNode('owner');
    quads.push(quad(owner, namedNode(ns.rdf + 'type'), namedNode(ns.acl + 'Authorization')), quad(owner, namedNode(ns.acl + 'agent'), namedNode(agent)), quad(owner, namedNode(ns.acl + 'accessTo'), namedNode(target.url)));
    for (const mode of ['Read', 'Write', 'Append'] as const) quads.push(quad(owner, namedNode(ns.acl + 'mode'), namedNode(ns.acl + mode)));
  }
  ctx.vary('Accept');
  ctx.type = type;
  ctx.body = await serialiseQuads(quads, type);
}

async function accessRequest(ctx: Koa.ParameterizedContext<State>, options: SystemOptions): Promise<void> {
  only(ctx, 'POST');
  const { runtime: admin, agent } = ctx.state;
  const endpoint = admin.dataspace.base + 'access/request';
  requireMode(await modesOnEndpoint(admin.access, endpoint, agent), 'Append', agent, endpoint);
  if (!agent) throw new HttpError(403, 'authenticate to request access: a request is granted to an agent');
  let type = '';
  try {
    type = contentType.parse(ctx.get('Content-Type')).type;
  } catch {
    // answered below
  }
  if (type !== FORM) throw new HttpError(415, `send the request as ${FORM} (this=<document URL>, mode=Read|Write|Append)`);
  const form = new URLSearchParams(decodeUtf8(await readBody(ctx.req, options.bodyLimit)));
  const target = documentOf(options, ctx, form.get('this') ?? undefined);
  const modes = form.getAll('mode');
  if (modes.length === 0 || modes.some((m) => !['Read', 'Write', 'Append', 'Control'].includes(m))) throw new HttpError(422, 'name the modes asked for: mode=Read, Write, Append or Control');
  const path = `acl/access-requests/${randomUUID()}/`;
  const url = admin.dataspace.base + path;
  const request = namedNode(`${url}#this`);
  const quads = [
    quad(namedNode(url), namedNode(ns.foaf + 'primaryTopic'), request),
    quad(request, namedNode(ns.rdf + 'type'), namedNode(ns.lacl + 'AuthorizationRequest')),
    quad(request, namedNode(ns.dct + 'title'), literal(`Access request from ${agent}`)),
    quad(request, namedNode(ns.lacl + 'requestAgent'), namedNode(agent)),
    quad(request, namedNode(ns.lacl + 'requestAccessTo'), namedNode(target.url)),
    ...modes.map((m) => quad(request, namedNode(ns.lacl + 'requestMode'), namedNode(ns.acl + m))),
  ];
  const text = await serialiseQuads(quads, 'application/n-triples');
  await admin.documents.write({ method: 'PUT', relativePath: path, agent, body: { text, mediaType: 'application/n-triples' }, precondition: () => undefined });
  ctx.status = 201;
  ctx.set('Location', url);
  ctx.body = '';
}

