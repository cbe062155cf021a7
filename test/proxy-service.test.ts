/**
 * The proxy as a service (src/proxy/service.ts), in process, against a real origin on loopback and
 * without Lodestone's TLS server: what goes to an origin for a client's request (its Accept,
 * preconditions and body type, never its cookie or credentials), the cache kept apart per agent and
 * purged by a write, and failures of the kind the client is answered with where they arise: 400 for
 * a URL that may not be requested (nothing sent), 502 for an origin that cannot be reached, answers
 * what the proxy does not read, or RDF that does not parse.
 */
import { ProxyCache } from '../src/proxy/cache.js';
import { Vocabularies } from '../src/net/vocabularies.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { outbound } from '../src/proxy/outbound.js';
import { ask, forwardedHeaders, isRepresentation, translated, type OriginRequest, type ProxyParts } from '../src/proxy/service.js';
import { translate } from '../src/rdf/translate.js';
import { freePort } from './http-helpers.js';
import { Origin } from './origin-server.js';

const TURTLE = { 'Content-Type': 'text/turtle', 'Cache-Control': 'max-age=60' };
const ALICE = 'https://alice.example/profile/card#me';
const BOB = 'https://bob.example/profile/card#me';

let origin: Origin;
let parts: ProxyParts;

before(async () => {
  origin = await new Origin().listen();
  origin.on('/book', { headers: { ...TURTLE, Location: '/elsewhere' }, body: '<#it> <http://purl.org/dc/terms/title> "Book" .' });
  origin.on('/cached', { headers: TURTLE, body: '<#it> <http://purl.org/dc/terms/title> "Cached" .' });
  origin.on('/broken', { headers: TURTLE, body: '<#it> <http://purl.org/dc/terms/title> "never closed .' });
  origin.on('/image', { headers: { 'Content-Type': 'image/png' }, body: 'PNG' });
  parts = { outbound: outbound({ allowInternal: true, cache: new ProxyCache(), vocabularies: new Vocabularies() }), remoteRdf: { translate } };
});
after(() => origin.close());

/** A client's request of `path` as `agent`, with `headers` (Node's: lower-case). */
const request = (path: string, agent?: string, method = 'GET', headers: OriginRequest['headers'] = {}, body?: Buffer): OriginRequest => ({
  target: new URL(origin.url(path)),
  method,
  headers,
  accept: headers.accept as string | undefined,
  body,
  agent,
});

describe('the proxy service', () => {
  it('sends the client’s Accept, preconditions, languages and body type as they came, never its cookie, credentials or On-Behalf-Of', async () => {
    const headers = { accept: 'text/turtle', 'if-none-match': '"v0"', 'accept-language': 'es', 'content-type': 'text/turtle', cookie: 'session=secret', authorization: 'Bearer secret', 'on-behalf-of': BOB };
    const answer = await ask(parts, request('/book', ALICE, 'PUT', headers, Buffer.from('<#a> <#b> <#c> .')));
    const seen = origin.requests('/book').at(-1)!;
    assert.equal(seen.method, 'PUT');
    for (const name of ['accept', 'if-none-match', 'accept-language', 'content-type']) assert.equal(seen.headers[name], headers[name as keyof typeof headers], name);
    for (const name of ['cookie', 'authorization', 'on-behalf-of']) assert.equal(seen.headers[name], undefined, `${name} stays here`);
    assert.equal(answer.kind, 'rdf');
    assert.equal(forwardedHeaders(answer.response).location, origin.url('/elsewhere'), 'a relative Location made absolute against the URL that answered');
  });

  it('keeps what an agent fetched for that agent only, and drops a URL for everyone after a write through it', async () => {
    const count = () => origin.requests('/cached').length;
    const first = await ask(parts, request('/cached', ALICE));
    assert.equal(count(), 1);
    const again = await ask(parts, request('/cached', ALICE));
    assert.equal(count(), 1, 'Alice’s second read comes from the cache');
    assert.ok(again.age !== undefined && again.variant === first.variant);
    await ask(parts, request('/cached', BOB));
    await ask(parts, request('/cached'));
    assert.equal(count(), 3, 'Bob and an anonymous client are not given what Alice’s identity fetched');
    await ask(parts, request('/cached', BOB, 'POST', { 'content-type': 'text/turtle' }, Buffer.from('')));
    await ask(parts, request('/cached', ALICE));
    assert.equal(count(), 5, 'a write through the proxy made every stored copy stale');
  });

  it('refuses where the failure arises, with the status the client gets', async () => {
    const guarded: ProxyParts = { outbound: outbound({ allowInternal: false, cache: new ProxyCache(), vocabularies: new Vocabularies() }), remoteRdf: { translate } };
    const before = origin.seen.length;
    await assert.rejects(ask(guarded, request('/book')), (error) => isLodestoneError(error, 'InvalidPath') && /--allow-internal-urls/.test(error.message));
    assert.equal(origin.seen.length, before, 'nothing was sent');
    const closed = await freePort();
    await assert.rejects(ask(parts, { ...request('/book'), target: new URL(`http://127.0.0.1:${closed}/`) }), (error) => isLodestoneError(error, 'BadGateway'));
    const image = await ask(parts, request('/image'));
    assert.throws(() => isRepresentation(image, false), (error) => isLodestoneError(error, 'BadGateway') && /neither RDF/.test(error.message));
    const broken = await ask(parts, request('/broken'));
    assert.equal(isRepresentation(broken, false), true);
    await assert.rejects(translated(parts, broken, 'application/n-triples'), (error) => isLodestoneError(error, 'BadGateway') && /could not be read/.test(error.message));
  });
});
