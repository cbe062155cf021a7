/**
 * The read fast path. Most requests a document server sees are GETs of current documents it has
 * already served; their answer is known from memory: HEAD's blob id, the cached serialisation, the
 * ETag derived from both. Those are answered straight from Node's request event, ahead of Koa. It
 * owns no HTTP rule: the route comes from the route table, the mode needed from authorize.ts, and
 * the status, headers and body from the one read path (document-read.ts), the same functions the
 * Koa routes answer with. It answers only when all of it is known without waiting (an agent already
 * verified, a decided policy, a cached body) and nothing is out of the ordinary (an Origin, a
 * query other than `?version=<sha>`, an error to send); otherwise it returns false untouched, and
 * Koa answers from scratch. Its answers carry the headers every answer carries (origins.ts).
 *
 * What it works out is kept, so a repeated GET does no string building: where a request URL leads
 * (a pure function of Host and URL), and per agent and Accept the answer the read path gave, with
 * what that answer was a function of (the document's blob id, the access policy and the server's
 * owner), checked on every use; both bounded, whatever Hosts, URLs and Accept headers are sent.
 * Conditional requests are answered from the read path each time.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Policy } from '../access/policy.js';
import { UNKNOWN } from '../auth/webid-tls.js';
import type { Authenticator } from './authenticate.js';
import { holds } from './authorize.js';
import { currentDocumentReply, mementoReply, sharedView, viewOf, type ReadReply } from './document-read.js';
import type { ReadCaches } from './read-caches.js';
import { documentPathIn, locate } from './locate.js';
import { answerHeaders, varyOrigin } from './origins.js';
import { HTML } from '../rdf/formats.js';
import { choose } from './offers.js';
import { codingOf, fromAnotherSite, THRESHOLD, varyEncoding, type Compressor } from './compression.js';
import { encodedTag, type Coding } from '../entity-tags.js';
import { judge } from './reply.js';
import type { Etags, RepresentationCache } from './representations.js';
import { offerFor, routeOf, type Route } from './routes.js';
import { COMMIT_HEADER, type DataspaceRuntime } from './state.js';

/** The one query the fast path answers: a memento, with nothing else that could change the answer. */
const VERSION_ONLY = /^version=[0-9a-f]{40}$/;
/** What it keeps, at most: places of request URLs, and answers (by place, agent and Accept); past that, it starts again. */
export const PLACES = 10_000;
export const ANSWERS = 10_000;

export interface FastReader {
  /** Answers `req` and returns true, or returns false untouched: Koa answers. */
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** How many places and answers it keeps now, counted in what it holds (its bounds are tested on it). */
  sizes(): { places: number; answers: number };
}

export interface FastReaderOptions {
  runtimes: readonly DataspaceRuntime[];
  scheme: 'https' | 'http';
  authenticator: Authenticator;
  representations: RepresentationCache;
  etags: Etags;
  /** The mementos the Koa routes found (read-caches.ts). */
  caches: ReadCaches;
  /** The encodings of cached bodies the Koa path made (compression.ts): without it, encoded answers are Koa's. */
  compressor?: Compressor;
}

/** A document a request URL names, as the fast path may answer it. */
interface Place {
  runtime: DataspaceRuntime;
  /** The row of the route table that takes it. */
  route: Route;
  relativePath: string;
  /** The commit of `?version=<sha>`, or undefined for the current document. */
  sha: string | undefined;
  /** The headers every answer about its dataspace carries (origins.ts). */
  common: Record<string, string>;
  /** Answers to GETs without preconditions, by agent (`` anonymous) and by Accept (`` none). */
  answers: Map<string, Map<string, Answer>>;
}

/** A 200 of the current document, and what it was decided from. */
interface Answer {
  blobId: string;
  /** A commit the documents were at while the document's blob was `blobId`: at that commit, it still is. */
  commit: string | undefined;
  policy: Policy | undefined;
  owner: string | undefined;
  /** Its body's key in the representation cache. */
  bodyKey: string;
  /** The headers sent, `Lodestone-Commit` (the document's last commit, as of `commit`) among them. */
  head: Record<string, string | number>;
  length: number;
}

export function fastReader(options: FastReaderOptions): FastReader {
  const { runtimes, scheme, representations } = options;
  // the headers every answer carries (origins.ts), as the Koa app sets them
  const commonOf = new Map(runtimes.map((runtime) => [runtime, answerHeaders(runtime.documents.base)]));
  const places = new Map<string, Map<string, Place | null>>();
  let placesKept = 0;
  /** The places holding answers, and how many they hold in all. */
  let answering: Place[] = [];
  let answersKept = 0;
  const forgetAnswers = () => {
    for (const place of answering) place.answers.clear();
    answering = [];
    answersKept = 0;
  };

  /** Where `url` at `host` leads, when it is a document the fast path may answer (else null). */
  const placeOf = (host: string, url: string): Place | null => {
    let place = places.get(host)?.get(url);
    if (place !== undefined) return place;
    place = findPlace(host, url);
    if (placesKept >= PLACES) {
      places.clear();
      placesKept = 0;
      forgetAnswers();
    }
    let ofHost = places.get(host);
    if (!ofHost) places.set(host, (ofHost = new Map()));
    ofHost.set(url, place);
    placesKept++;
    return place;
  };
  const findPlace = (host: string, url: string): Place | null => {
    const question = url.indexOf('?');
    const path = question < 0 ? url : url.slice(0, question);
    const querystring = question < 0 ? '' : url.slice(question + 1);
    if (path.includes('//')) return null;
    const { runtime, relative, url: located } = locate(runtimes, scheme, host, path);
    if (!runtime || located + '/' === runtime.documents.base) return null; // a base without its slash: Koa redirects (app.ts)
    const route = routeOf(runtime, relative, querystring)?.route;
    if (!route || (route.path !== 'document' && route.path !== 'root') || (querystring !== '' && !VERSION_ONLY.test(querystring))) return null;
    let relativePath: string;
    try {
      relativePath = documentPathIn(runtimes, runtime, relative);
    } catch {
      return null; // an invalid path: Koa answers it as it deserves
    }
    const sha = route.query === 'version' ? new URLSearchParams(querystring).get('version') ?? '' : undefined;
    return { runtime, route, relativePath, sha, common: commonOf.get(runtime)!, answers: new Map() };
  };

  /** The answer the read path gives, when the fast path may send it (else undefined: Koa answers). */
  const decide = (req: IncomingMessage, place: Place, agent: string | undefined): { reply: ReadReply; status: 200 | 304; body: Buffer | undefined } | undefined => {
    const { runtime, relativePath, sha } = place;
    const { headers } = req;
    const modes = runtime.access.modesNow(runtime, relativePath, agent);
    // readers only: Koa answers a HEAD of an agent that may not read (no length) and decides every 403
    if (!modes || !holds(modes, 'Read')) return undefined;
    const type = choose(offerFor(place.route, req.method!, modes), headers.accept); // as dispatch decides it
    if (type === HTML) return undefined; // a page: Koa draws it
    let reply: ReadReply;
    if (sha !== undefined) {
      const url = runtime.documents.url(relativePath);
      const known = options.caches.memento(url, sha);
      // a version is judged as it was (its own owners and types): Koa answers one not known, or not readable
      const versionModes = known && runtime.access.modesNow(runtime, relativePath, agent, known);
      if (!versionModes || !holds(versionModes, 'Read')) return undefined;
      const anonymous = runtime.access.modesNow(runtime, relativePath, undefined, known);
      if (!anonymous) return undefined;
      const variant = viewOf(runtime, relativePath, agent, modes);
      reply = mementoReply(url, sha, known, type, { variant, shared: sharedView(runtime, relativePath, variant, anonymous) });
    } else {
      reply = currentDocumentReply({ runtime, relativePath, agent, modes, blobId: runtime.documents.blobId(relativePath), type, etags: options.etags });
    }
    // the conditional GET as the one reply path judges it (a failed If-Match throws: Koa answers the 412)
    if (judge(headers, reply.etag) === 'not-modified') return { reply, status: 304, body: undefined };
    if (!reply.body) return { reply, status: 200, body: undefined };
    const body = representations.peek(reply.body.blobId, reply.body.type + reply.body.variant);
    return body && { reply, status: 200, body };
  };

  /** The headers of `reply` sent with `status`, as the one reply path sends them: its own, its validator and type, those of every answer, Vary with Origin, the length of `body`. */
  const headOf = (place: Place, reply: ReadReply, status: 200 | 304, body: Buffer | undefined): Record<string, string | number> => {
    const vary = varyEncoding(reply.headers.Vary, reply.contentType); // a 304 too (RFC 9110 §15.4.5), as Koa's (compression.ts)
    const head: Record<string, string | number> = { ...reply.headers, ETag: reply.etag, ...(status === 200 && { 'Content-Type': reply.contentType }), ...place.common, Vary: varyOrigin(vary) };
    if (body) head['Content-Length'] = body.length;
    return head;
  };

  /** `head` naming the commit the answer reflects: the document's last, as Koa's answers name it (routes.ts reflectsOf). */
  const withCommit = (place: Place, head: Record<string, string | number>): Record<string, string | number> => {
    const named: Record<string, string | number> = { ...head };
    delete named[COMMIT_HEADER];
    const commit = place.runtime.documents.commitOf(place.relativePath);
    if (commit) named[COMMIT_HEADER] = commit;
    return named;
  };

  /** Keeps the 200 `reply` of the current document for `agent` and `accept`. */
  const keep = (place: Place, agent: string, accept: string, reply: ReadReply, body: Buffer): Answer => {
    const { access, documents } = place.runtime;
    const { blobId, type, variant } = reply.body!;
    const answer: Answer = { blobId, commit: documents.head(), policy: access.current(), owner: access.owner, bodyKey: representations.key(blobId, type + variant), head: withCommit(place, headOf(place, reply, 200, body)), length: body.length };
    if (answersKept >= ANSWERS) forgetAnswers();
    if (place.answers.size === 0) answering.push(place);
    let byAccept = place.answers.get(agent);
    if (!byAccept) place.answers.set(agent, (byAccept = new Map()));
    if (!byAccept.has(accept)) answersKept++;
    byAccept.set(accept, answer);
    return answer;
  };

  /** A kept answer, when what it was decided from is unchanged. */
  const kept = (place: Place, agent: string, accept: string): Answer | undefined => {
    const answer = place.answers.get(agent)?.get(accept);
    if (!answer) return undefined;
    const { access, documents } = place.runtime;
    if (answer.owner !== access.owner || answer.policy !== access.current()) return undefined;
    const commit = documents.head();
    if (answer.commit !== commit) {
      if (answer.blobId !== documents.blobId(place.relativePath)) return undefined;
      answer.commit = commit; // other documents changed: this one is as it was (its bytes; its last commit is asked again)
      answer.head = withCommit(place, answer.head);
    }
    return answer;
  };

  /** The 200 of `head` and `body` as the encoding Koa made of `body` (compression.ts), when it made one and may send it (else undefined: Koa answers). */
  const encodedAnswer = (req: IncomingMessage, head: Record<string, string | number>, body: Buffer, coding: Coding): { status: number; head: Record<string, string | number>; body: Buffer } | undefined => {
    const made = fromAnotherSite(req.headers) ? undefined : options.compressor?.made(body, coding);
    return made && { status: 200, head: { ...head, 'Content-Encoding': coding, ETag: encodedTag(String(head.ETag), coding), 'Content-Length': made.length }, body: made };
  };

  /** What to send, when the fast path answers `req` (else undefined: Koa answers). */
  const answerOf = (req: IncomingMessage): { status: number; head: Record<string, string | number>; body: Buffer | undefined } | undefined => {
    const { method, url, headers } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return undefined;
    // a client that asks for at least a commit (a replica may have to wait for it: routes.ts) is answered by Koa
    if (headers.origin !== undefined || headers.host === undefined || headers['on-behalf-of'] !== undefined || headers['lodestone-min-commit'] !== undefined) return undefined;
    const place = placeOf(headers.host, url);
    if (!place) return undefined;
    const conditional = headers['if-match'] !== undefined || headers['if-none-match'] !== undefined;
    if (place.sha !== undefined && conditional) return undefined;
    const agent = options.authenticator.known(req, place.runtime.documents.base);
    if (agent === UNKNOWN) return undefined;
    // an answer to be sent encoded (a body of THRESHOLD bytes or more, or a 304 of a variant): Koa encodes it (compression.ts),
    // and a kept answer is sent with the encoding Koa made of its body
    const coding = headers['accept-encoding'] === undefined ? 'identity' : codingOf(headers['accept-encoding']);
    const encoded = coding !== 'identity';
    if (encoded && conditional) return undefined;
    // no Accept and an empty one negotiate alike (negotiate.ts: the first type offered)
    const keepable = place.sha === undefined && !conditional;
    const answer = keepable ? kept(place, agent ?? '', headers.accept ?? '') : undefined;
    const body = answer && representations.peekKey(answer.bodyKey);
    if (answer && body) {
      if (coding !== 'identity' && body.length >= THRESHOLD) return encodedAnswer(req, answer.head, body, coding);
      if (body.length !== answer.length) {
        answer.head = { ...answer.head, 'Content-Length': body.length };
        answer.length = body.length;
      }
      return { status: 200, head: answer.head, body };
    }
    const decided = decide(req, place, agent);
    if (!decided) return undefined;
    const { reply, status } = decided;
    if (keepable && status === 200 && decided.body) {
      const { head } = keep(place, agent ?? '', headers.accept ?? '', reply, decided.body);
      if (coding !== 'identity' && decided.body.length >= THRESHOLD) return encodedAnswer(req, head, decided.body, coding);
      return { status: 200, head, body: decided.body };
    }
    if (encoded && decided.body && decided.body.length >= THRESHOLD) return undefined;
    return { status, head: withCommit(place, headOf(place, reply, status, decided.body)), body: decided.body };
  };

  const sizes = () => {
    const holding = new Set(answering);
    let placeCount = 0;
    for (const ofHost of places.values()) {
      for (const place of ofHost.values()) {
        placeCount++;
        if (place) holding.add(place);
      }
    }
    let answerCount = 0;
    for (const place of holding) for (const byAccept of place.answers.values()) answerCount += byAccept.size;
    return { places: placeCount, answers: answerCount };
  };

  const read = (req: IncomingMessage, res: ServerResponse): boolean => {
    let answer: ReturnType<typeof answerOf>;
    try {
      answer = answerOf(req);
    } catch {
      return false; // an error to send (404, 406, 412, an invalid path): Koa answers it as it deserves
    }
    if (!answer) return false;
    res.writeHead(answer.status, answer.head);
    res.end(req.method === 'HEAD' ? undefined : answer.body);
    return true;
  };
  return Object.assign(read, { sizes });
}
