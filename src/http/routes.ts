/**
 * The route table: every path of a dataspace, by method and query kind, with its handler. A path
 * is a document path (ends in `/`; the root document is ``), with or without a history query
 * (`?version=`, `?timemap`, `?timegate`, `?diff=`, `?restore=`, `?blame`, `?branch=`), the root with the proxy's `?uri=`
 * (SPEC §4.5), or a system endpoint. Each row declares what it needs (a mode on a target,
 * authorize.ts) and what it offers (a kind of representation, offers.ts), and dispatch decides
 * both once, before any handler: 405 with the row's `Allow` for a method it lacks (before any
 * authorization: the methods of a path are no secret), 204 for OPTIONS, 403, then the type
 * negotiated (406 for a read when nothing offered is acceptable, sent once the handler has found
 * what it reads: 404 comes first), `Vary: Accept` where more than one type is offered. A handler
 * receives the decision and returns the reply it sends (reply.ts) or answers itself. A path no
 * row takes that does not end in `/` is redirected there (SPEC §4.1, 308). New endpoints are one
 * row each.
 */
import { emptyBody } from './body.js';
import type Koa from 'koa';
import { LodestoneError } from '../errors.js';
import { oidcCallback, oidcLogin, oidcLogout } from './oauth2.js';
import { accessEndpoint, accessRequest, signup } from './admin-endpoints.js';
import { deleteDocument, documentOptions, readDocument, writeDocument } from './documents.js';
import { diff, restore, timegate, timemap, version } from './memento.js';
import { revert } from './undo.js';
import { changeRequest, readOnBranch } from './branches.js';
import { comments } from './comments.js';
import { blame } from './blame.js';
import { historyQuery, type HistoryKind } from './history-query.js';
import { robots, sitemap } from './sitemap.js';
import { clearOntologies } from './clear.js';
import { namespaceOntology } from './ns.js';
import { proxy } from './proxy.js';
import { settings } from './settings.js';
import { sparql } from './sparql.js';
import { status } from './status.js';
import { gitHead, gitRefs, gitUploadPack } from './git-http.js';
import { favicon, staticAsset } from './html.js';
import { isAdminDataspace } from './dataspace-role.js';
import type { Context, DataspaceRuntime, Decided, Handler, State } from './state.js';
import { authorize, holds, type Needs } from './authorize.js';
import { notAcceptable } from './document-read.js';
import { acceptOf } from './negotiate.js';
import { choose, NARROWER, OFFERS, type Offer, type OfferKind } from './offers.js';
import { send } from './reply.js';
import { sentToPrimary } from './replica-routing.js';
import { postToUploads, serveUpload } from './uploads.js';
import { UPLOADS } from '../documents/upload-layout.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface Route {
  /** What the row serves, in words. */
  name: string;
  /** Admin dataspaces only, end-user dataspaces only, or every dataspace. */
  in: 'every' | 'admin' | 'user';
  /** `document`: any document path but the root's; `root`: the root document; else a relative path or pattern. */
  path: 'document' | 'root' | string | RegExp;
  /** For document paths: the history query the row answers (none: the current document); `proxy`: the root's `?uri=`. */
  query?: HistoryKind | 'proxy';
  /** The mode each method needs, and on what. */
  needs: Needs;
  /** The kind of representation it answers reads with. */
  offers: OfferKind;
  methods: Partial<Record<Method, Handler>>;
  /** A POST reads (a query): a replica answers it rather than sending it to the primary. */
  postReads?: true;
  /** Only the primary holds what the row serves (branches: replicas follow main only), so a replica sends reads there too. */
  primaryOnly?: true;
}

const METHODS: readonly Method[] = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];

const current = { GET: readDocument, HEAD: readDocument, PUT: writeDocument, POST: writeDocument, PATCH: writeDocument, OPTIONS: documentOptions };
const read = (handler: Handler) => ({ GET: handler, HEAD: handler });
const onDocument: Needs = { on: 'document' };
const endpoint = (mode: Needs['mode']): Needs => ({ on: 'endpoint', mode });
const open: Needs = { on: 'nothing' };

export const routes: readonly Route[] = [
  { name: 'the root document', in: 'every', path: 'root', needs: onDocument, offers: 'document', methods: current },
  { name: 'the Linked Data proxy', in: 'every', path: 'root', query: 'proxy', needs: { on: 'proxied' }, offers: 'none', methods: { ...read(proxy), POST: proxy, PUT: proxy, PATCH: proxy, DELETE: proxy } },
  { name: 'a document', in: 'every', path: 'document', needs: onDocument, offers: 'document', methods: { ...current, DELETE: deleteDocument } },
  // issue 28: files, as LinkedDataHub keeps them (documents/uploads.ts); the container is a document besides
  { name: 'the uploads', in: 'user', path: UPLOADS, needs: onDocument, offers: 'document', methods: { ...current, DELETE: deleteDocument, POST: postToUploads } },
  { name: 'an uploaded file', in: 'user', path: /^uploads\/([0-9a-f]{40})$/, needs: { on: 'upload', mode: 'Read' }, offers: 'none', methods: read(serveUpload) },
  { name: 'a memento', in: 'every', path: 'document', query: 'version', needs: { on: 'document', mode: 'Read' }, offers: 'document', methods: read(version) },
  { name: 'a TimeMap', in: 'every', path: 'document', query: 'timemap', needs: { on: 'document', mode: 'Read' }, offers: 'timemap', methods: read(timemap) },
  { name: 'a TimeGate', in: 'every', path: 'document', query: 'timegate', needs: { on: 'document', mode: 'Read' }, offers: 'none', methods: read(timegate) },
  { name: 'a diff of two versions', in: 'every', path: 'document', query: 'diff', needs: { on: 'document', mode: 'Read' }, offers: 'diff', methods: read(diff) },
  { name: 'blame: each triple with the commit that brought it', in: 'every', path: 'document', query: 'blame', needs: { on: 'document', mode: 'Read' }, offers: 'graphPage', methods: read(blame) },
  { name: 'restoring a version', in: 'every', path: 'document', query: 'restore', needs: { on: 'document', mode: 'Write' }, offers: 'document', methods: { POST: restore } },
  // issue 30: Write on the container addressed, and on every document the revert changes (undo.ts)
  { name: 'reverting a commit', in: 'every', path: 'document', query: 'revert', needs: { on: 'document', mode: 'Write' }, offers: 'document', methods: { POST: revert } },
  // issue 30: drafts as git branches (branches.ts); a write there is checked as the same write on main
  { name: 'a document on a branch', in: 'user', path: 'document', query: 'branch', needs: onDocument, offers: 'graph', methods: { ...read(readOnBranch), PUT: writeDocument, POST: writeDocument, PATCH: writeDocument, DELETE: deleteDocument, OPTIONS: documentOptions }, primaryOnly: true },
  { name: 'a branch’s change request', in: 'user', path: 'document', query: 'changes', needs: { on: 'branch', mode: { GET: 'Read', HEAD: 'Read', POST: 'Write', DELETE: 'Write' } }, offers: 'diff', methods: { ...read(changeRequest), POST: changeRequest, DELETE: changeRequest }, primaryOnly: true },
  // issue 30: Append on every document the branch changed to comment (the merge needs Write there), Read to read (comments.ts)
  { name: 'the comments of a change request', in: 'user', path: 'document', query: 'comments', needs: { on: 'branch', mode: { GET: 'Read', HEAD: 'Read', POST: 'Append' } }, offers: 'graph', methods: { ...read(comments), POST: comments }, primaryOnly: true },
  { name: 'the SPARQL endpoint', in: 'every', path: 'sparql', needs: endpoint('Read'), offers: 'answers', methods: { ...read(sparql), POST: sparql }, postReads: true },
  { name: 'the sitemap', in: 'every', path: 'sitemap.xml', needs: open, offers: 'none', methods: read(sitemap) },
  // read-only, to the secretary's certificate: replicas follow the primary with git's own protocol
  { name: 'the repository’s refs, for replicas', in: 'every', path: '.git/info/refs', needs: { on: 'secretary' }, offers: 'none', methods: read(gitRefs) },
  { name: 'the repository’s HEAD, for replicas', in: 'every', path: '.git/head', needs: { on: 'secretary' }, offers: 'none', methods: read(gitHead) },
  { name: 'the repository’s packs, for replicas', in: 'every', path: '.git/git-upload-pack', needs: { on: 'secretary' }, offers: 'none', methods: { POST: gitUploadPack }, postReads: true },
  { name: 'robots.txt', in: 'every', path: 'robots.txt', needs: open, offers: 'none', methods: read(robots) },
  { name: 'the pages’ icon', in: 'every', path: 'favicon.ico', needs: open, offers: 'asset', methods: read(favicon) },
  { name: 'a script or style of the pages', in: 'every', path: /^static\/([^/]*)$/, needs: open, offers: 'asset', methods: read(staticAsset) },
  { name: 'the dataspace’s settings', in: 'every', path: 'settings', needs: endpoint({ GET: 'Read', HEAD: 'Read', PATCH: 'Write' }), offers: 'graphPage', methods: { ...read(settings), PATCH: settings } },
  // owners only: Control on the dataspace is what its owners hold
  { name: 'the dataspace’s status', in: 'every', path: 'status', needs: endpoint('Control'), offers: 'status', methods: read(status) },
  { name: 'the namespace ontology', in: 'every', path: 'ns', needs: endpoint('Read'), offers: 'answers', methods: { ...read(namespaceOntology), POST: namespaceOntology }, postReads: true },
  { name: 'signing up', in: 'admin', path: 'sign%20up', needs: endpoint({ GET: 'Read', HEAD: 'Read', POST: 'Append' }), offers: 'page', methods: { ...read(signup), POST: signup } },
  { name: 'an agent’s access', in: 'admin', path: 'access', needs: endpoint('Read'), offers: 'graph', methods: read(accessEndpoint) },
  { name: 'an access request', in: 'admin', path: 'access/request', needs: { on: 'endpoint', mode: 'Append', agent: true }, offers: 'none', methods: { POST: accessRequest } },
  { name: 'clearing the cached ontologies', in: 'admin', path: 'clear', needs: endpoint('Write'), offers: 'none', methods: { POST: clearOntologies } },
  { name: 'OpenID Connect login', in: 'admin', path: /^oauth2\/login\/([^/]*)$/, needs: open, offers: 'none', methods: { GET: oidcLogin } },
  { name: 'the OpenID Connect callback', in: 'admin', path: /^oauth2\/authorize\/([^/]*)$/, needs: open, offers: 'none', methods: { GET: oidcCallback } },
  // by POST only: a GET would let any page, link or image end a visitor's session
  { name: 'OpenID Connect logout', in: 'admin', path: 'oauth2/logout', needs: open, offers: 'none', methods: { POST: oidcLogout } },
];

/** The methods a row answers, in the usual order, OPTIONS included. */
export function allowOf(route: Route): string {
  return METHODS.filter((m) => m === 'OPTIONS' || route.methods[m]).join(', ');
}

/** The row that takes `relative` (as sent, relative to the dataspace base) with `querystring`, and what its pattern captured. */
export function routeOf(runtime: DataspaceRuntime, relative: string, querystring: string): { route: Route; captured: string[] } | undefined {
  const admin = isAdminDataspace(runtime);
  if (relative === '' || relative.endsWith('/')) {
    const kind = relative === '' && querystring !== '' && new URLSearchParams(querystring).has('uri') ? 'proxy' : historyQuery(querystring)?.kind;
    if (relative === UPLOADS && querystring === '' && !admin) return { route: routes.find((r) => r.path === UPLOADS)!, captured: [] };
    const path = relative === '' ? 'root' : 'document';
    const route = routes.find((r) => r.query === kind && (r.path === path || (kind !== undefined && r.path === 'document')));
    return route && { route, captured: [] };
  }
  for (const route of routes) {
    if ((route.in === 'admin' && !admin) || (route.in === 'user' && admin)) continue;
    if (route.path === relative) return { route, captured: [] };
    if (route.path instanceof RegExp) {
      const match = route.path.exec(relative);
      if (match) return { route, captured: match.slice(1) };
    }
  }
  return undefined;
}

/**
 * Answers a request of a dataspace from the row that takes its path and query; false, having done
 * nothing, when no row takes it. The proxy answers a URL of its own dataspace with it, as a new
 * request (Served.route).
 */
export async function route(ctx: Context): Promise<boolean> {
  if (ctx.querystring !== '' && ctx.query.graph !== undefined) {
    // DESIGN.md: indirect graph identification is not supported
    throw new LodestoneError('BadRequest', 'indirect graph identification (?graph=) is not supported: use the graph’s own URL');
  }
  const found = routeOf(ctx.state.runtime, ctx.state.relative, ctx.querystring);
  if (!found) return false;
  await answerRoute(ctx, found);
  return true;
}

/** The middleware that answers every request of a dataspace from the table; a path no row takes is redirected to its slash. */
export function dispatch(): Koa.Middleware<State> {
  return async (ctx) => {
    if (!(await route(ctx))) redirectToSlash(ctx);
  };
}

const READS = new Set(['GET', 'HEAD']);

/** What a row offers a request: a write is answered with the validator of its RDF, a HEAD that may not read gets no page. */
export function offerFor(route: Route, method: string, modes: ReadonlySet<import('../access/access-control.js').Mode>): Offer {
  if (route.offers === 'graphPage') return READS.has(method) ? OFFERS.graphPage : NARROWER.rdf;
  if (route.offers !== 'document') return OFFERS[route.offers];
  return READS.has(method) && (method === 'GET' || holds(modes, 'Read')) ? OFFERS.document : NARROWER.rdf;
}

/** Answers a request with the row `found`: 405 or OPTIONS, authorization, negotiation, then its handler and its reply. */
export async function answerRoute(ctx: Koa.ParameterizedContext<State>, found: { route: Route; captured: readonly string[] }): Promise<void> {
  const { route, captured } = found;
  const handler = route.methods[ctx.method as Method];
  const allow = allowOf(route);
  if (ctx.method === 'OPTIONS') ctx.set('Allow', allow);
  if (!handler) {
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new LodestoneError('MethodNotAllowed', `${ctx.method} is not supported on ${route.name}; allowed: ${allow}`, { allow });
  }
  if (await sentToPrimary(ctx, route.postReads === true, route.primaryOnly === true)) return; // a replica's write, or a commit it does not hold yet
  const { modes, path } = ctx.method === 'OPTIONS' ? { modes: new Set<never>(), path: '' } : await authorize(ctx, route.needs);
  ctx.state.reflects = reflectsOf(ctx, route, path, modes);
  const offer = offerFor(route, ctx.method, modes);
  const accept = acceptOf(ctx.headers, ctx.querystring);
  const type = choose(offer, accept);
  if (offer.types.length > 1 && ctx.method !== 'OPTIONS') ctx.vary('Accept');
  // a write has no representation to refuse: it is answered with the validator of the RDF its Accept selects, if any
  const unacceptable = type === undefined && offer.fallback === undefined && offer.types.length > 0 && READS.has(ctx.method) && route.offers !== 'answers';
  const decided: Decided = { captured, modes, path, type, accept };
  const reply = await handler(ctx, decided);
  // 404 (or 400) before 406: the handler says first whether there is anything to represent, and nothing it made is sent
  if (unacceptable) throw notAcceptable(offer.types, { Vary: 'Accept' });
  if (reply) await send(ctx, reply);
}

/**
 * The commit a row's answer names (issue 29, `Lodestone-Commit`): about one document (its versions
 * and pages included), the last commit that changed it, so that polling a public document tells
 * nothing of writes to others; a SPARQL answer or the status, HEAD: they reflect the whole
 * dataspace, to those who may read all of it (Read on the endpoint reads every graph; the status is
 * the owners'). A read by an agent without Read, and a branch's answers, name none (a merge names main's new commit itself). Other answers (the sitemap, ns, settings, pages of the interface, the proxy) name none.
 */
function reflectsOf(ctx: Context, route: Route, path: string, modes: ReadonlySet<import('../access/access-control.js').Mode>): State['reflects'] {
  const { documents } = ctx.state.runtime;
  if (route.primaryOnly) return undefined; // a branch's answers: main's commits say nothing of them
  if (READS.has(ctx.method as Method) && !holds(modes, 'Read')) return undefined; // a HEAD to one who may not read gives the validator only
  if (route.needs.on === 'document' || route.needs.on === 'root' || route.needs.on === 'upload') return () => documents.commitOf(path);
  if (route.path === 'sparql' || route.path === 'status') return () => documents.head();
  return undefined;
}

/** SPEC §4.1: a document URL ends in a slash; another form is redirected there, its query kept. */
export function redirectToSlash(ctx: Koa.ParameterizedContext<State>): void {
  ctx.status = 308;
  ctx.set('Location', ctx.state.url + '/' + (ctx.querystring ? `?${ctx.querystring}` : ''));
  emptyBody(ctx);
}
