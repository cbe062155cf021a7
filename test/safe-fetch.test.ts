/**
 * Outgoing requests (src/net/safe-fetch.ts, src/auth/remote-webid.ts) against real loopback
 * servers, HTTP and HTTPS with a self-signed certificate: internal addresses in every spelling are
 * refused before any connection (each refusal is checked against the server's request log), also
 * at a redirect hop and after DNS rebinding; size, time and redirect limits hold; remote WebID
 * documents are parsed, cached and fetched once for concurrent readers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as dns, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { issueCredentials } from '../src/auth/certificates.js';
import { RemoteWebIds } from '../src/auth/remote-webid.js';
import { isLodestoneError, type ErrorCode } from '../src/errors.js';
import { createServer as createTcpServer } from 'node:net';
import { RDF_ACCEPT, isInternalAddress, safeFetch, safeRequest, type FetchFailure, type SafeFetchOptions } from '../src/net/safe-fetch.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';

const MODULUS = 'c0ffee' + 'ab'.repeat(125);

const turtleWebId = `@prefix cert: <${ns.cert}> . @prefix foaf: <${ns.foaf}> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#me> a foaf:Person ; cert:key [ cert:modulus "${MODULUS}"^^xsd:hexBinary ; cert:exponent 65537 ] .
`;
const jsonLdWebId = JSON.stringify({
  '@context': { cert: ns.cert, foaf: ns.foaf, xsd: 'http://www.w3.org/2001/XMLSchema#' },
  '@id': '#me',
  '@type': 'foaf:Person',
  'cert:key': { 'cert:modulus': { '@value': MODULUS, '@type': 'xsd:hexBinary' }, 'cert:exponent': 65537 },
});

/** A loopback server that records every request path and answers by path. */
class TestServer {
  readonly requests: string[] = [];
  readonly accepts: string[] = [];
  private readonly server: http.Server;
  private changes = 0;

  constructor(readonly name: string, tls?: { key: string; cert: string }) {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  }

  async listen(host: string, port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => this.server.once('error', reject).listen(port, host, resolve));
    return (this.server.address() as AddressInfo).port;
  }

  count(path: string): number {
    return this.requests.filter((p) => p === path).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://test');
    this.requests.push(url.pathname);
    this.accepts.push(req.headers.accept ?? '');
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...headers }).end(body);
    };
    const path = url.pathname;
    if (path === '/whoami') send(200, 'text/plain', this.name);
    else if (path.startsWith('/card') && path.endsWith('.ttl')) send(200, 'text/turtle; charset=utf-8', turtleWebId, { ETag: '"t1"', 'Cache-Control': 'public, max-age=60' });
    else if (path.startsWith('/card') && path.endsWith('.jsonld')) send(200, 'application/ld+json', jsonLdWebId);
    else if (path === '/slow-card.ttl') setTimeout(() => send(200, 'text/turtle', turtleWebId), 150);
    else if (path === '/changing.ttl') send(200, 'text/turtle', `<#me> <${ns.foaf}nick> "v${++this.changes}" .`, { 'Cache-Control': 'max-age=60' });
    else if (path === '/no-store.ttl') send(200, 'text/turtle', turtleWebId, { 'Cache-Control': 'no-store' });
    else if (path === '/broken.ttl') send(200, 'text/turtle', '<#me> a <unclosed .');
    else if (path === '/page.html') send(200, 'text/html', '<html></html>');
    else if (path === '/big') send(200, 'text/plain', 'x'.repeat(3000));
    else if (path === '/big-chunked') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      for (let i = 0; i < 3; i++) res.write('x'.repeat(1000));
      res.end();
    } else if (path === '/hang') {
      // never answers
    } else if (path === '/trickle') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/redirect') res.writeHead(302, { Location: url.searchParams.get('to') ?? '/' }).end();
    else if (path.startsWith('/loop/')) res.writeHead(307, { Location: `/loop/${Number(path.slice(6)) + 1}` }).end();
    else send(404, 'text/plain', 'not found');
  }
}

async function refused(promise: Promise<unknown>, reason: FetchFailure, code: ErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isLodestoneError(error, code), `expected a LodestoneError ${code}, got ${String(error)}`);
    assert.equal(error.data.reason, reason, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe('isInternalAddress', () => {
  it('classifies loopback, private, link-local, CGNAT, multicast, metadata and their IPv6 forms', () => {
    const internal = ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::', '::1', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:c0a8:101::1', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'fe80::1%eth0', 'ff02::1',
      'localhost', 'not an address'];
    const external = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '93.184.215.14', '::ffff:8.8.8.8', '64:ff9b::808:808', '2606:4700:4700::1111', '2a00:1450:4001::200e'];
    for (const address of internal) assert.equal(isInternalAddress(address), true, address);
    for (const address of external) assert.equal(isInternalAddress(address), false, address);
  });
});

const credentials = await issueCredentials({ commonName: 'localhost', dnsNames: ['localhost'], ips: ['127.0.0.1', '::1'] });

describe('safeFetch', () => {
  const local = new TestServer('local'); // 127.0.0.1:port
  const publicServer = new TestServer('public'); // 127.0.0.2:port, called public by the test classifier
  const v6 = new TestServer('v6'); // [::1]
  const secure = new TestServer('secure', { key: credentials.keyPem, cert: credentials.certPem });
  let port = 0;
  let v6Port = 0;
  let securePort = 0;
  let resolutions: string[] = [];

  /** 127.0.0.2 counts as public; `public.test` resolves to it, `mixed.test` also to a private address. */
  const asIfPublic: Pick<SafeFetchOptions, 'resolve' | 'isInternal'> = {
    isInternal: (address) => address !== '127.0.0.2' && isInternalAddress(address),
    resolve: async (hostname): Promise<LookupAddress[]> => {
      resolutions.push(hostname);
      if (hostname === 'public.test') return [{ address: '127.0.0.2', family: 4 }];
      if (hostname === 'mixed.test') return [{ address: '127.0.0.2', family: 4 }, { address: '10.0.0.1', family: 4 }];
      // DNS rebinding: public on the first answer, loopback on every later one
      if (hostname === 'rebind.test') return [{ address: resolutions.filter((h) => h === hostname).length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
      if (hostname === 'never.test') return new Promise(() => undefined);
      return dns.lookup(hostname, { all: true });
    },
  };

  before(async () => {
    port = await local.listen('127.0.0.1');
    await publicServer.listen('127.0.0.2', port); // same port: a rebinding to 127.0.0.1 would reach `local`
    v6Port = await v6.listen('::1');
    securePort = await secure.listen('127.0.0.1');
  });
  after(async () => {
    await Promise.all([local.close(), publicServer.close(), v6.close(), secure.close()]);
  });

  it('refuses loopback, private, link-local and metadata hosts in every spelling, before connecting', async () => {
    const urls = [
      `http://127.0.0.1:${port}/whoami`,
      `http://localhost:${port}/whoami`,
      `http://[::1]:${v6Port}/whoami`,
      'http://10.0.0.1/whoami',
      'http://192.168.1.1/whoami',
      'http://169.254.169.254/latest/meta-data/',
      `http://0x7f000001:${port}/whoami`,
      `http://2130706433:${port}/whoami`,
      `http://127.1:${port}/whoami`,
      `http://[::ffff:127.0.0.1]:${port}/whoami`,
      `http://[::ffff:7f00:1]:${port}/whoami`,
      `https://localhost:${securePort}/whoami`,
    ];
    for (const url of urls) await refused(safeFetch(url, { allowInternal: false }), 'internal-address', 'InvalidPath', /--allow-internal-urls/);
    assert.deepEqual([local.requests, v6.requests, secure.requests], [[], [], []]);
  });

  it('fetches from internal addresses with allowInternal, over HTTP and HTTPS, with the RDF Accept header', async () => {
    for (const url of [`http://127.0.0.1:${port}/whoami`, `http://localhost:${port}/whoami`, `http://0x7f000001:${port}/whoami`]) {
      assert.equal((await safeFetch(url, { allowInternal: true })).body, 'local', url);
    }
    assert.equal((await safeFetch(`http://[::1]:${v6Port}/whoami`, { allowInternal: true })).body, 'v6');
    const card = await safeFetch(`https://localhost:${securePort}/card.ttl#me`, { allowInternal: true, ca: credentials.certPem });
    assert.deepEqual(card, { url: `https://localhost:${securePort}/card.ttl`, status: 200, mediaType: 'text/turtle', body: turtleWebId, etag: '"t1"', maxAge: 60 });
    assert.equal(secure.accepts.at(-1), RDF_ACCEPT);
    assert.equal((await safeFetch(`https://127.0.0.1:${securePort}/whoami`, { allowInternal: true, ca: credentials.certPem })).body, 'secure');
    const missing = await safeFetch(`http://127.0.0.1:${port}/nothing`, { allowInternal: true });
    assert.equal(missing.status, 404);
  });

  it('keeps TLS verification on: an untrusted certificate or a name it does not cover is refused', async () => {
    await refused(safeFetch(`https://localhost:${securePort}/whoami`, { allowInternal: true }), 'unreachable', 'BadGateway', /SELF_SIGNED|certificate/i);
    const elsewhere = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
    await refused(safeFetch(`https://elsewhere.test:${securePort}/whoami`, { allowInternal: true, ca: credentials.certPem, resolve: elsewhere }), 'unreachable', 'BadGateway', /ALTNAME/);
    assert.equal((await safeFetch(`https://localhost:${securePort}/whoami`, { allowInternal: true, ca: credentials.certPem, resolve: elsewhere })).body, 'secure');
  });

  it('refuses a host with any internal address, and connects only to the address it checked (DNS rebinding)', async () => {
    assert.equal((await safeFetch(`http://public.test:${port}/whoami`, { allowInternal: false, ...asIfPublic })).body, 'public');
    await refused(safeFetch(`http://mixed.test:${port}/whoami`, { allowInternal: false, ...asIfPublic }), 'internal-address', 'InvalidPath', /10\.0\.0\.1/);
    resolutions = [];
    const before = local.requests.length;
    assert.equal((await safeFetch(`http://rebind.test:${port}/whoami`, { allowInternal: false, ...asIfPublic })).body, 'public');
    assert.deepEqual(resolutions, ['rebind.test'], 'resolved once, and node:net did not resolve again');
    assert.equal(local.requests.length, before);
  });

  it('checks every redirect hop: a redirect from a public host to an internal address or another scheme is refused', async () => {
    const redirect = (to: string) => `http://public.test:${port}/redirect?to=${encodeURIComponent(to)}`;
    const localBefore = local.requests.length;
    await refused(safeFetch(redirect(`http://127.0.0.1:${port}/whoami`), { allowInternal: false, ...asIfPublic }), 'internal-address', 'InvalidPath');
    await refused(safeFetch(redirect(`http://localhost:${port}/whoami`), { allowInternal: false, ...asIfPublic }), 'internal-address', 'InvalidPath');
    await refused(safeFetch(redirect('http://169.254.169.254/latest/meta-data/'), { allowInternal: false, ...asIfPublic }), 'internal-address', 'InvalidPath');
    await refused(safeFetch(redirect('file:///etc/passwd'), { allowInternal: false, ...asIfPublic }), 'scheme', 'InvalidPath', /redirect/);
    assert.equal(local.requests.length, localBefore, 'the internal server was never reached');
    assert.equal(publicServer.count('/redirect'), 4);
    const followed = await safeFetch(redirect('/card.jsonld'), { allowInternal: false, ...asIfPublic });
    assert.equal(followed.url, `http://public.test:${port}/card.jsonld`);
    assert.equal(followed.mediaType, 'application/ld+json');
  });

  it('follows at most maxRedirects redirects', async () => {
    const five = await safeFetch(`http://127.0.0.1:${port}/loop/0`, { allowInternal: true, maxRedirects: 5 }).catch((error: unknown) => error);
    assert.ok(isLodestoneError(five, 'BadGateway') && five.data.reason === 'redirects');
    assert.equal(local.requests.filter((p) => p.startsWith('/loop/')).length, 6, 'the first request and five redirects');
    await refused(safeFetch(`http://127.0.0.1:${port}/loop/0`, { allowInternal: true, maxRedirects: 0 }), 'redirects', 'BadGateway');
  });

  it('refuses a body larger than maxBytes, declared or streamed', async () => {
    await refused(safeFetch(`http://127.0.0.1:${port}/big`, { allowInternal: true, maxBytes: 1000 }), 'too-large', 'BadGateway', /more than 1000 bytes/);
    await refused(safeFetch(`http://127.0.0.1:${port}/big-chunked`, { allowInternal: true, maxBytes: 1000 }), 'too-large', 'BadGateway');
    assert.equal((await safeFetch(`http://127.0.0.1:${port}/big-chunked`, { allowInternal: true, maxBytes: 3000 })).body.length, 3000);
  });

  it('times out a request that does not answer, or answers without end, or whose host does not resolve', async () => {
    await refused(safeFetch(`http://127.0.0.1:${port}/hang`, { allowInternal: true, timeoutMs: 300 }), 'timeout', 'GatewayTimeout');
    await refused(safeFetch(`http://127.0.0.1:${port}/trickle`, { allowInternal: true, timeoutMs: 300 }), 'timeout', 'GatewayTimeout');
    await refused(safeFetch(`http://never.test:${port}/whoami`, { allowInternal: false, timeoutMs: 300, ...asIfPublic }), 'timeout', 'GatewayTimeout');
  });

  it('times out a connection that is not made in time (a TLS handshake that never ends), apart from the whole deadline', async () => {
    const sockets: Array<{ destroy(): void }> = [];
    const mute = createTcpServer((socket) => void sockets.push(socket)); // accepts, never speaks
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const mutePort = (mute.address() as AddressInfo).port;
    try {
      await refused(safeFetch(`https://127.0.0.1:${mutePort}/`, { allowInternal: true, connectTimeoutMs: 200, timeoutMs: 10_000 }), 'timeout', 'GatewayTimeout', /did not accept a connection within 200 ms/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it('sends other methods with their body, follows only method-keeping redirects for them, and gives back any status with headers and bytes', async () => {
    const posted = await safeRequest(`http://127.0.0.1:${port}/redirect?to=/whoami`, { allowInternal: true, method: 'POST', body: Buffer.from('x'), headers: { 'content-type': 'text/turtle' } });
    assert.equal(posted.status, 302, 'a 302 is the answer to a POST, not followed');
    assert.equal(posted.headers.location, '/whoami');
    const kept = await safeRequest(`http://127.0.0.1:${port}/loop/0`, { allowInternal: true, method: 'PUT', body: Buffer.from('x'), maxRedirects: 1 }).catch((error: unknown) => error);
    assert.ok(isLodestoneError(kept) && kept.data.reason === 'redirects', '307s are followed for a PUT');
    const head = await safeRequest(`http://127.0.0.1:${port}/whoami`, { allowInternal: true, method: 'HEAD' });
    assert.deepEqual([head.status, head.bytes.length, head.mediaType], [200, 0, 'text/plain']);
  });

  it('sends the identity (client certificate and headers) to https hops of the requested origin only', async () => {
    const identity = { cert: credentials.certPem, key: credentials.keyPem, headers: { 'on-behalf-of': 'https://example.org/agent#me' } };
    const plain = await safeRequest(`http://127.0.0.1:${port}/whoami`, { allowInternal: true, identity });
    assert.equal(plain.identified, false);
    const secured = await safeRequest(`https://localhost:${securePort}/whoami`, { allowInternal: true, ca: credentials.certPem, identity });
    assert.equal(secured.identified, true);
    const elsewhere = await safeRequest(`https://localhost:${securePort}/redirect?to=${encodeURIComponent(`https://127.0.0.1:${securePort}/whoami`)}`, { allowInternal: true, ca: credentials.certPem, identity });
    assert.equal(elsewhere.identified, false, 'a redirect to another origin goes without it');
  });

  it('refuses schemes other than http and https, and URLs with credentials, even with allowInternal', async () => {
    const before = local.requests.length;
    for (const url of ['file:///etc/passwd', 'ftp://example.org/card.ttl', `gopher://127.0.0.1:${port}/_GET`, 'data:text/turtle,<a>%20<b>%20<c>%20.', 'javascript:alert(1)']) {
      await refused(safeFetch(url, { allowInternal: true }), 'scheme', 'InvalidPath');
    }
    for (const url of [`http://user:pass@127.0.0.1:${port}/whoami`, 'https://user@example.org/', 'https://:secret@example.org/']) {
      await refused(safeFetch(url, { allowInternal: true }), 'credentials', 'InvalidPath');
    }
    await refused(safeFetch('/card.ttl', { allowInternal: true }), 'url', 'InvalidPath');
    assert.equal(local.requests.length, before, 'nothing was requested');
  });

  it('reports an unreachable host as the origin’s fault (BadGateway)', async () => {
    const closed = new TestServer('closed');
    const closedPort = await closed.listen('127.0.0.1');
    await closed.close();
    await refused(safeFetch(`http://127.0.0.1:${closedPort}/`, { allowInternal: true }), 'unreachable', 'BadGateway', /ECONNREFUSED/);
  });

  describe('RemoteWebIds', () => {
    let clock = 1_000_000;
    const webIds = () => new RemoteWebIds({ fetch: (url) => safeFetch(url, { allowInternal: true, ca: credentials.certPem }), now: () => clock });
    const keyOf = (quads: { subject: { value: string }; predicate: { value: string }; object: { value: string } }[], webId: string) => {
      const key = quads.find((q) => q.subject.value === webId && q.predicate.value === ns.cert + 'key')?.object.value;
      return quads.find((q) => q.subject.value === key && q.predicate.value === ns.cert + 'modulus')?.object.value;
    };

    it('parses Turtle and JSON-LD WebID documents against their URL, and reads each once while fresh', async () => {
      const cache = webIds();
      for (const path of ['/card-a.ttl', '/card-a.jsonld']) {
        const url = `https://localhost:${securePort}${path}`;
        const first = await cache.read(`${url}#me`);
        assert.ok(first, cache.failure(url));
        assert.equal(keyOf(parseRdf(first.ntriples.toString('utf8')), `${url}#me`), MODULUS, path);
        const body = path.endsWith('.ttl') ? turtleWebId : jsonLdWebId;
        assert.equal(first.blobId, createHash('sha1').update(body).digest('hex'));
        const second = await cache.read(url);
        assert.equal(second, first);
        assert.equal(cache.blobId(`${url}#me`), first.blobId);
        assert.equal(secure.count(path), 1, 'the second read made no request');
      }
    });

    it('shares one fetch between concurrent reads', async () => {
      const cache = webIds();
      const url = `http://127.0.0.1:${port}/slow-card.ttl`;
      const results = await Promise.all(Array.from({ length: 5 }, () => cache.read(url)));
      assert.equal(local.count('/slow-card.ttl'), 1);
      for (const result of results) assert.equal(result, results[0]);
      assert.equal(keyOf(parseRdf(results[0]!.ntriples.toString('utf8')), `${url}#me`), MODULUS);
    });

    it('keeps a document for its max-age, then reads it again and sees the new bytes', async () => {
      const cache = webIds();
      const url = `http://127.0.0.1:${port}/changing.ttl`;
      const first = await cache.read(url);
      clock += 59_000;
      assert.equal(await cache.read(url), first);
      assert.equal(local.count('/changing.ttl'), 1);
      clock += 2_000;
      assert.equal(cache.blobId(url), undefined, 'stale');
      const second = await cache.read(url);
      assert.equal(local.count('/changing.ttl'), 2);
      assert.notEqual(second?.blobId, first?.blobId);
      await cache.read(`http://127.0.0.1:${port}/no-store.ttl`);
      await cache.read(`http://127.0.0.1:${port}/no-store.ttl`);
      assert.equal(local.count('/no-store.ttl'), 2, 'no-store is not reused');
    });

    it('answers undefined with a reason for a refused address, a 404, an unparsable or a non-RDF document, and remembers the failure briefly', async () => {
      const strict = new RemoteWebIds({ fetch: (url) => safeFetch(url, { allowInternal: false }) });
      assert.equal(await strict.read(`http://127.0.0.1:${port}/card-b.ttl`), undefined);
      assert.match(strict.failure(`http://127.0.0.1:${port}/card-b.ttl`) ?? '', /allow-internal-urls/);
      assert.equal(local.count('/card-b.ttl'), 0);
      const cache = webIds();
      const cases: Array<[string, RegExp]> = [['/gone.ttl', /404/], ['/broken.ttl', /invalid text\/turtle/], ['/page.html', /text\/html is not an RDF format/]];
      for (const [path, reason] of cases) {
        const url = `http://127.0.0.1:${port}${path}`;
        assert.equal(await cache.read(url), undefined, path);
        assert.match(cache.failure(url) ?? '', reason);
        assert.equal(await cache.read(url), undefined, path);
        assert.equal(local.count(path), 1, `${path}: the failure was remembered`);
      }
      clock += 31_000;
      await cache.read(`http://127.0.0.1:${port}/gone.ttl`);
      assert.equal(local.count('/gone.ttl'), 2, 'and forgotten after 30 s');
    });
  });
});
