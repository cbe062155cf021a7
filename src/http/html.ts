/**
 * HTML at the same URLs as RDF (DESIGN.md, "HTML"): a browser's Accept gets a page, `?accept=`
 * still overrides. Here is what every page response shares: the frame of the request (language,
 * who is browsing, how to log in), and the headers (Content-Language, Vary, a strict
 * Content-Security-Policy, an ETag over the page, 304 on a match). The pages themselves are
 * src/pages/, which knows nothing of Koa.
 */
import { LodestoneError } from '../errors.js';
import { assetByPlainName, assetNamed } from '../pages/assets.js';
import { errorPage, type ErrorPage } from '../pages/error-page.js';
import type { FrameData } from '../pages/draw.js';
import type { Frame, Visitor } from '../pages/layout.js';
import { messages, pageLanguage, type Language } from '../pages/messages.js';
import { titleIn, titlesOf } from '../pages/labels.js';
import type { Html } from '../pages/html.js';
import { literalsOf } from '../rdf/canonical-lines.js';
import { HTML } from '../rdf/formats.js';
import { contentTypeOf } from './representations.js';
import { TITLE_PREDICATES } from '../rdf/namespaces.js';
import { adminOf } from './dataspace-role.js';
import { holds } from './authorize.js';
import { byCertificate } from './authenticate.js';
import { hasSitemap } from './sitemap.js';
import { loginProviders } from './oidc-endpoints.js';
import { judge } from './reply.js';
import type { Context, DataspaceRuntime, Decided, Served } from './state.js';
import { canonicalDocumentPath as documentPath, isDocumentPath } from '../document-paths.js';
import { documentIri } from '../rdf/iri.js';
import { runtimeFor } from './locate.js';

/** No inline script or style, nothing from elsewhere but images; forms post only here. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Names looked up for one page at most: a page names a few people (its creator, owner, authors), not a list of them all. */
const NAMES_PER_PAGE = 50;
/** A longer IRI is shown as it is, never looked up: the paths looked up are kept (document-paths.ts memos), and anyone who writes a document chooses its IRIs. */
const NAMED_IRI_LENGTH = 2_048;

/**
 * The name of each of `iris` that lies in a dataspace of this server, as its own page titles it
 * (pages/labels.ts titlesOf: a person by its foaf:name unless its document titles it otherwise, a
 * document linked from another page by its title, never its URL's last segment), where the
 * request's agent may read its document; the others are left out, to be shown by their IRI: a
 * name the viewer may not read is never shown (SPEC §7).
 */
export async function namesOf(ctx: Context, iris: Iterable<string>): Promise<Record<string, string>> {
  const { served, agent } = ctx.state;
  const names: Record<string, string> = {};
  const language = languageOf(ctx);
  let looked = 0;
  for (const iri of new Set(iris)) {
    const document = documentIri(iri);
    const runtime = runtimeFor(served.runtimes, document);
    if (!runtime || document.length > NAMED_IRI_LENGTH || !document.startsWith(runtime.documents.base) || ++looked > NAMES_PER_PAGE) continue;
    const name = await nameIn(served, runtime, document.slice(runtime.documents.base.length), iri, agent, language).catch(() => undefined);
    if (name) names[iri] = name;
  }
  return names;
}

/**
 * The title `iri`'s document at `path` (as written in an IRI) gives it, when `agent` may read that
 * document. The titles of each version are scanned once (read-caches.ts); the access, every time.
 */
async function nameIn(served: Served, runtime: DataspaceRuntime, path: string, iri: string, agent: string | undefined, language: Language): Promise<string | undefined> {
  if (!isDocumentPath(path)) return undefined; // an IRI in a document is anyone's to write: one that names no document (a term of `ns#`, `a//b/`) is shown as it is
  const relativePath = documentPath(path);
  if (!holds(await runtime.access.modesOn(runtime, relativePath, agent), 'Read')) return undefined;
  const blob = runtime.documents.blobId(relativePath);
  const kept = blob === undefined ? undefined : served.caches.titlesKept(blob);
  if (kept) return titleIn(kept, iri, language);
  const found = await runtime.documents.read(relativePath);
  return found && titleIn(served.caches.titlesOf(found.blobId, () => titlesOf(literalsOf(found.bytes.toString('utf8'), TITLES))), iri, language);
}

const TITLES: ReadonlySet<string> = new Set(TITLE_PREDICATES);

/** The language of the request's page: `?lang=`, then Accept-Language. */
function languageOf(ctx: Context): Language {
  return pageLanguage(ctx.get('Accept-Language') || undefined, new URLSearchParams(ctx.querystring).get('lang'));
}

/** Who is browsing and how they may log in. */
export async function visitorOf(ctx: Context): Promise<Visitor> {
  const { runtime, served, agent } = ctx.state;
  const admin = runtime && served ? adminOf(served.runtimes, runtime) : undefined;
  return {
    webId: agent,
    name: agent ? (await namesOf(ctx, [agent]))[agent] : undefined,
    // the navigation links the admin dataspace for those who may read it
    admin: admin !== undefined && holds(await admin.access.modesOn(admin, '', agent), 'Read'),
    certificate: agent !== undefined && byCertificate(ctx.req),
    adminBase: admin?.documents.base ?? '/',
    providers: admin ? loginProviders(admin) : [],
    signup: admin !== undefined,
  };
}

/**
 * The parts of a page's frame that come from the request, without its messages (they follow from
 * the language). The URL the page echoes (in its language switch) has the request's query, or with
 * `echo` only the parameters the page reads, as it read them: a page kept once drawn must not be
 * drawn again for every other query string.
 */
export async function frameDataOf(ctx: Context, echo?: Record<string, string>): Promise<FrameData> {
  const language = languageOf(ctx);
  const base = ctx.state.runtime?.documents.base ?? `${ctx.protocol}://${ctx.host}/`;
  const query = echo ? new URLSearchParams(echo).toString() : ctx.querystring;
  const sitemap = ctx.state.runtime ? await hasSitemap(ctx.state.runtime).catch(() => false) : false;
  return { language, base, url: ctx.state.url ? ctx.state.url + (query ? `?${query}` : '') : ctx.href, visitor: await visitorOf(ctx), sitemap };
}

/** The parts of a page's frame that come from the request, with the messages of its language. */
export async function frameOf(ctx: Context): Promise<Pick<Frame, 'language' | 't' | 'base' | 'url' | 'visitor' | 'sitemap'>> {
  const data = await frameDataOf(ctx);
  return { ...data, t: messages(data.language) };
}

/** The headers every page carries. */
export function pageHeaders(language: string): Record<string, string> {
  return {
    'Content-Type': contentTypeOf(HTML),
    'Content-Language': language,
    Vary: 'Accept, Accept-Language, Cookie',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    // a page shows what its agent may do: it is the agent's own, revalidated on every use
    'Cache-Control': 'private, no-cache',
  };
}

/** Sends a page with `status`; a 200 carries an ETag over its bytes, judged as every validator is (reply.ts: 304, 412). */
export function sendPage(ctx: Context, status: number, language: string, content: Html): void {
  ctx.set(pageHeaders(language));
  ctx.status = status;
  if (status === 200) {
    const tag = ctx.state.served.etags.of(ctx.state.url, content.encoded.tag, `${HTML};${language}`); // keyed, as every ETag (over the page's own digest)
    ctx.set('ETag', tag);
    if (judge(ctx.headers, tag) === 'not-modified') {
      ctx.status = 304;
      ctx.body = null;
      return;
    }
  }
  ctx.body = content.encoded.bytes;
}

/**
 * The page of an error status (the RDF error embedded); the request's document is the one an access
 * request names. `foreign`: the error is another origin's, read through the proxy, and its body is shown as text;
 * `past`: a 404 of a deleted document, shown to a reader with its history.
 */
export async function errorHtml(ctx: Context, status: number, reason: string, message: string, jsonld: string, more: Pick<ErrorPage, 'foreign' | 'past'> = {}): Promise<void> {
  const { foreign, past } = more;
  const frame = await frameOf(ctx);
  const target = ctx.state.url && ctx.state.runtime && !foreign ? ctx.state.url : undefined;
  ctx.set(pageHeaders(frame.language));
  ctx.status = status;
  ctx.body = errorPage({ frame, status, reason, message, jsonld, target, foreign, past }).text;
}

/**
 * `GET <base>favicon.ico`: the pages' icon where browsers look for it unasked (a page names its SVG
 * with `<link rel="icon">`; an answer that is not a page, such as Turtle shown as text, does not).
 * Public and cached a day: its URL has no digest, so a new icon must reach browsers without one.
 */
export async function favicon(ctx: Context): Promise<void> {
  const asset = assetByPlainName('favicon.ico');
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.bytes;
}

/** `GET <base>static/<name>`: a script or style of the pages, named by its digest, cached for a year. */
export async function staticAsset(ctx: Context, { captured: [name = ''] }: Decided): Promise<void> {
  const asset = assetNamed(name);
  if (!asset) throw new LodestoneError('NotFound', `there is no static file ${name.slice(0, 100)} (a page of an older version may name one that is gone: reload it)`);
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.bytes;
}
