/**
 * A real Lodestone server for HTTP tests: a temporary data directory, and a small client that
 * speaks as the owner, the secretary, anonymously or with any PEM. By default requests reach the
 * server's own request listener in process (in-process.ts: Node's HTTP over an in-memory pair,
 * the client certificate handed over as TLS would); with `{ tls: true }`, over real TLS and TCP.
 * One server per test file.
 */
import { request as httpsRequest, Agent, type RequestOptions as HttpsRequestOptions } from 'node:https';
import type forgeModule from 'node-forge';
import { createRequire } from 'node:module';
import { request as httpRequest, type Agent as HttpAgent, type ClientRequest, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { issueCredentials, rsaPublicKey } from '../src/auth/certificates.js';
import { serveConfig } from '../src/config.js';
import { ns } from '../src/rdf/namespaces.js';
import { serve, type Running, type ServeSeams } from '../src/server.js';
import { after, before } from 'node:test';
import { removeTempDirs, tempDir } from './helpers.js';
import { inProcess } from './in-process.js';
import { bootstrapTemplate, copyTemplate, takeTlsPort, TEMPLATE_BASE, tlsTemplate } from './bootstrap-template.js';
import { EnginePool } from './engines/engine-pool.js';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** 'owner' (default), 'secretary', 'anonymous', or a PEM (certificate followed by key). */
  as?: 'owner' | 'secretary' | 'anonymous' | { pem: string };
  /** The client's address (e.g. 127.0.0.2, to look like another host): over TLS, the local address connected from. */
  localAddress?: string;
}

/** How a request is opened: its path is sent as is; `fresh` asks for a connection of its own (over TLS, no pooled one). */
export interface Opening {
  method: string;
  path: string;
  headers?: Record<string, string>;
  as?: RequestOptions['as'];
  localAddress?: string;
  fresh?: boolean;
}

export interface TestServer {
  base: string;
  admin: string;
  data: string;
  /** The port the server listens on (in process, its base may name another: requests to this port then reach no dataspace). */
  port: number;
  /** Whether requests go over real TLS and TCP (`{ tls: true }`) rather than in process. */
  tls: boolean;
  running: Running;
  ownerPem: string;
  secretaryPem: string;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** `request`, with the body as bytes. */
  requestBytes(method: string, path: string, options?: RequestOptions): Promise<Response & { bytes: Buffer }>;
  /** Opens a request whose body the caller writes and ends. */
  open(opening: Opening, onResponse: (res: IncomingMessage) => void): ClientRequest;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on `port` of the loopback address. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Collects a whole response. */
/** A response read whole: status, headers, body as UTF-8 and as bytes. */
export function collect(res: IncomingMessage): Promise<Response & { bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const bytes = Buffer.concat(chunks);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
    });
    res.on('error', reject);
  });
}

/**
 * Sends one request and collects the whole response (body as UTF-8). `target` and `options` are
 * those of `https.request` (a target given as options is sent as is, path byte for byte); plain
 * HTTP is used when the protocol (of `options`, else of the URL) is `http:`.
 */
export function sendRequest(target: string | URL | HttpsRequestOptions, options: HttpsRequestOptions = {}, body?: string | Buffer): Promise<Response> {
  const url = typeof target === 'string' ? new URL(target) : target instanceof URL ? target : undefined;
  const protocol = options.protocol ?? (url ? url.protocol : (target as HttpsRequestOptions).protocol);
  const send = protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => collect(res).then(({ status, headers, body }) => resolve({ status, headers, body }), reject);
    const req = url ? send(url, options, onResponse) : send({ ...(target as HttpsRequestOptions), ...options }, onResponse);
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface StartOptions {
  /** Real HTTPS (or HTTP with --http) over TCP for every request: for tests about the wire or real clients. Default: in process. */
  tls?: boolean;
  /** The server bootstraps its own data directory, as on a first start. Default: it starts as a copy of a template (bootstrap-template.ts), unless given a base, port or host. */
  bootstrap?: boolean;
  /** The server watches its repositories for git commits and edited `.nt` files, as `serve` does. Default: not. */
  watch?: boolean;
}

/** The engines of this file's servers on LODESTONE_TEST_INDEX, kept between servers (on-engine.ts stops them after the file). */
export const testEngines = new EnginePool();

/** The data directories started as copies of the template. */
const fromTemplate = new Set<string>();

/** Flags that decide what a data directory is made for: with any of them, the server bootstraps its own. */
const BASE_FLAGS = new Set(['--base', '--port', '--host', '--http', '--data']);

/**
 * A server on `data` (default: a new temporary directory). An empty data directory starts as a
 * copy of one of the run's templates (bootstrap-template.ts), unless `extraArgs` name a base, port
 * or host (then the server bootstraps its own, at https://localhost:<a free port>/): in process (the
 * default), the template at TEMPLATE_BASE; with `{ tls: true }`, the template of a TLS port this
 * process holds, at https://localhost:<that port>/, and every request goes over TLS.
 */
export async function startServer(extraArgs: string[] = [], data?: string, log: (line: string) => void = () => undefined, seams: ServeSeams = {}, options: StartOptions = {}): Promise<TestServer> {
  const tls = options.tls === true;
  const dir = data ?? tempDir('server');
  const fresh = !options.bootstrap && !extraArgs.some((arg) => BASE_FLAGS.has(arg)) && (!existsSync(dir) || readdirSync(dir).length === 0);
  if (fresh && tls) {
    // over TLS, a copy of the template made for a port of the range this process holds; a port someone else listens on: the next
    for (let port = takeTlsPort(); port !== undefined; port = takeTlsPort(port)) {
      if (!(await portFree(port))) continue; // no template made for a port another program listens on
      copyTemplate(await tlsTemplate(port), dir);
      try {
        return await startServer(['--port', String(port), ...extraArgs], dir, log, seams, options);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
    }
  }
  const copied = fresh && !tls;
  if (copied) {
    copyTemplate(await bootstrapTemplate(), dir);
    fromTemplate.add(dir);
  }
  // a restart of a copy (given a --port) keeps the base it was made for
  const base = fromTemplate.has(dir) && !extraArgs.includes('--base') ? ['--base', TEMPLATE_BASE] : [];
  // extraArgs come last: a later flag wins (say --access-log FILE for a test that reads the log)
  const where = [...base, '--port', copied ? '0' : String(await freePort())];
  // one query lane per dataspace, not the default two (each a worker holding a copy of the index):
  // a test of lanes, or of queries answered beside a slow one, names its --query-lanes
  const lanes = ['--query-lanes', '1'];
  // LODESTONE_TEST_INDEX=<kind>: the end-user dataspace's index on a fresh engine of that kind (test/engines/)
  const engine = process.env.LODESTONE_TEST_INDEX && !extraArgs.includes('--index') ? await testEngines.take(process.env.LODESTONE_TEST_INDEX) : undefined;
  const onEngine = engine ? ['--index', `${engine.kind}:${engine.url}`] : [];
  const config = serveConfig(['--data', dir, ...where, '--host', 'localhost', ...(options.watch ? [] : ['--no-watch']), '--access-log', 'off', ...lanes, ...onEngine, ...extraArgs]);
  if (config === 'help') throw new Error('unexpected --help');
  const running = await serve(config, log, seams).catch(async (error: unknown) => {
    if (engine) await testEngines.give(engine);
    throw error;
  });
  const ownerPem = readFileSync(running.agents.owner.credentialsFile, 'utf8');
  const secretaryPem = readFileSync(running.agents.secretary.credentialsFile, 'utf8');
  const port = (running.server.address() as AddressInfo).port;
  const plain = config.http;
  const pemOf = (as: RequestOptions['as'] = 'owner') => (as === 'owner' ? ownerPem : as === 'secretary' ? secretaryPem : as === 'anonymous' ? undefined : as.pem);
  // keep-alive connections, one pool per client (address and certificate), as a browser or curl keeps them
  const agents = new Map<string, HttpAgent>();
  const pooled = (key: string, make: () => HttpAgent) => {
    let agent = agents.get(key);
    if (!agent) agents.set(key, (agent = make()));
    return agent;
  };
  const agentFor = (pem: string | undefined) => pooled(pem ?? '', () => new Agent({ keepAlive: true, rejectUnauthorized: false, ...(pem ? { cert: pem, key: pem } : {}) }));
  const local = tls ? undefined : await inProcess(running.handle);
  const open = (o: Opening, onResponse: (res: IncomingMessage) => void): ClientRequest => {
    const pem = pemOf(o.as);
    // a path is sent as is, to the base's host; an absolute URL to its own host (the port listened on, over the wire)
    const url = new URL(o.path, config.base);
    const target = { host: url.hostname, method: o.method, path: o.path.startsWith('/') ? o.path : url.pathname + url.search, headers: o.headers };
    if (local) {
      const peer = { address: o.localAddress, tls: plain ? undefined : { certificate: pem } };
      if (o.fresh) return local.request({ ...target, port: url.port }, peer, onResponse);
      return httpRequest({ ...target, port: url.port, agent: pooled(`${o.localAddress ?? ''} ${pem ?? ''}`, () => local.agent(peer)) }, onResponse);
    }
    const wire = { ...target, port: url.port || port, agent: o.fresh || o.localAddress ? false : undefined, ...(o.localAddress ? { localAddress: o.localAddress } : {}) };
    if (plain) return httpRequest(wire, onResponse);
    return httpsRequest({ ...wire, rejectUnauthorized: false, ...(wire.agent === false ? {} : { agent: agentFor(pem) }), ...(pem ? { cert: pem, key: pem } : {}) }, onResponse);
  };
  const requestBytes = (method: string, path: string, options: RequestOptions = {}): Promise<Response & { bytes: Buffer }> => {
    const target = new URL(path, config.base);
    return new Promise((resolve, reject) => {
      const req = open({ method, path: target.href, headers: options.headers, as: options.as, localAddress: options.localAddress }, (res) => collect(res).then(resolve, reject));
      req.on('error', reject);
      req.end(options.body);
    });
  };
  return {
    base: config.base,
    admin: new URL('admin/', config.base).href,
    data: dir,
    port,
    tls,
    running,
    ownerPem,
    secretaryPem,
    request: (method, path, options) => requestBytes(method, path, options).then(({ status, headers, body }) => ({ status, headers, body })),
    requestBytes,
    open,
    async close() {
      for (const agent of agents.values()) agent.destroy();
      await running.close();
      if (engine) await testEngines.give(engine);
    },
  };
}

export const turtle = { 'Content-Type': 'text/turtle' };

export { assertRdfError, header } from './assert-rdf-error.js';

/**
 * One server for a test file: started before its tests (then `ready` runs with it and the end-user
 * repository's folder), closed after them, with the temporary folders removed.
 */
export function serverForFile(ready: (server: TestServer, repo: string) => void | Promise<void>, extraArgs: string[] = [], options: StartOptions = {}): void {
  let server: TestServer | undefined;
  before(async () => {
    server = await startServer(extraArgs, undefined, undefined, {}, options);
    await ready(server, server.running.runtimes[0]!.dataspace.store.dir);
  });
  after(async () => {
    await server?.close();
    removeTempDirs();
  });
}

/**
 * Lets anyone read every document of the end-user dataspace: an authorization (acl:agentClass
 * foaf:Agent, acl:Read, acl:accessTo and acl:default the root) written into the admin dataspace
 * as the owner, through the document service.
 */
export async function makePublic(s: TestServer, slug = 'public-test'): Promise<void> {
  const admin = s.running.runtimes[1]!.documents;
  const acl = 'http://www.w3.org/ns/auth/acl#';
  const text = `<> <http://xmlns.com/foaf/0.1/primaryTopic> <#this> .\n<#this> a <${acl}Authorization> ; <${acl}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}> ; <${acl}default> <${s.base}> .\n`;
  await admin.write({ method: 'PUT', relativePath: `acl/authorizations/${slug}/`, agent: s.running.agents.owner.webId, body: { text, mediaType: 'text/turtle' } });
}

/** PUTs a Turtle body as the owner, quoting the current ETag when the document exists; asserts 200/201. */
export async function putTurtle(s: TestServer, path: string, body: string): Promise<void> {
  const head = await s.request('HEAD', path);
  const res = await s.request('PUT', path, { headers: { ...turtle, ...(head.status === 200 ? { 'If-Match': String(head.headers.etag) } : {}) }, body });
  if (res.status !== 201 && res.status !== 200) throw new Error(`PUT ${path}: ${res.status} ${res.body}`);
}

/**
 * A new agent of the admin dataspace written as the owner writes one by hand: its public key and its
 * WebID document (with `extra` Turtle about `<#this>`, e.g. acl:delegates), and its certificate.
 */
export async function certifiedAgent(s: TestServer, name: string, extra = ''): Promise<{ webId: string; pem: string }> {
  const id = randomUUID();
  const webId = `${s.admin}acl/agents/${id}/#this`;
  const credentials = await issueCredentials({ commonName: name, webId });
  const key = rsaPublicKey(credentials.certPem)!;
  await putTurtle(s, `/admin/acl/public-keys/${id}/`, `<#this> a <${ns.cert}RSAPublicKey> ; <${ns.cert}modulus> "${key.modulus}"^^<${ns.xsd}hexBinary> ; <${ns.cert}exponent> ${key.exponent} .`);
  await putTurtle(s, `/admin/acl/agents/${id}/`, `<#this> a <${ns.foaf}Agent> ; <${ns.foaf}name> "${name}" ; <${ns.cert}key> <${s.admin}acl/public-keys/${id}/#this>${extra} .`);
  return { webId, pem: credentials.certPem + credentials.keyPem };
}

/** A data directory whose end-user dataspace (at https://localhost:`port`/) mirrors to `location` with `token` (credentials mode 0600). */
export function mirroredDataDir(port: number, location: string, token: string): string {
  const data = tempDir('mirror');
  writeFileSync(join(data, 'system.ttl'), [
    `@prefix lds: <${ns.lds}> . @prefix doap: <${ns.doap}> . @prefix repo: <${ns.repo}> .`,
    `<https://localhost:${port}/> lds:versioningRepository <urn:lodestone:repository:end-user> .`,
    `<urn:lodestone:repository:end-user> a doap:GitRepository ; doap:location <${location}> ; repo:branch "main" ; repo:pathPrefix "graphs" .`,
  ].join('\n'));
  mkdirSync(join(data, 'secrets'), { recursive: true });
  writeFileSync(join(data, 'secrets', 'credentials.ttl'), `<urn:lodestone:repository:end-user> <${ns.a}authToken> "${token}" .\n`, { mode: 0o600 });
  return data;
}

/**
 * A request as the owner on a connection of its own, with the path sent as is (not normalised by
 * URL parsing) and the body written by `send`, which can ask whether the response has arrived.
 */
export function rawRequest(s: TestServer, method: string, path: string, headers: Record<string, string>, send: (req: ClientRequest, answered: () => boolean) => void | Promise<void>): Promise<Response> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = s.open({ method, path, headers, fresh: true }, (res) => {
      answered = true;
      collect(res).then(({ status, headers, body }) => {
        resolve({ status, headers, body });
        req.destroy();
      }, reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    Promise.resolve(send(req, () => answered)).catch((error: unknown) => {
      if (!answered) reject(error as Error);
    });
  });
}

/** A stranger who signed up as anyone on the web can: it owns its profile and public key. */
export interface Stranger {
  webId: string;
  /** Its profile (WebID document) URL. */
  profile: string;
  /** Its client certificate followed by its private key, as `request`'s `as` takes it. */
  pem: string;
}

/** The loopback address the next signup comes from: signups are counted per client address (5 per 10 minutes). */
let nextSignupAddress = 100;

/**
 * Signs up anonymously on `s` with `name`, each signup from a loopback address of its own
 * (127.0.0.100 and on), and turns the PKCS#12 the signup answers into PEM.
 */
export async function signUp(s: TestServer, name: string, email = `${name.toLowerCase().replace(/[^a-z0-9]/g, '') || 'someone'}-${nextSignupAddress}@example.org`): Promise<Stranger> {
  const password = 'correct horse battery';
  const localAddress = `127.0.0.${nextSignupAddress}`;
  nextSignupAddress = nextSignupAddress >= 250 ? 100 : nextSignupAddress + 1;
  const res = await s.requestBytes('POST', '/admin/sign%20up', { as: 'anonymous', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ name, email, password }).toString(), localAddress });
  if (res.status !== 201) throw new Error(`signup: ${res.status} ${res.body.slice(0, 300)}`);
  const location = String(res.headers.location);
  return { webId: `${location}#this`, profile: location, pem: pemOfPkcs12(res.bytes, password) };
}

/** The certificate and private key of a PKCS#12 (as signup answers it), as PEM: what `request`'s `as` takes. */
export function pemOfPkcs12(p12: Buffer, password: string): string {
  const forge = createRequire(import.meta.url)('node-forge') as typeof forgeModule; // only files that sign up load it
  const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(p12.toString('binary')), password);
  const cert = parsed.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!]![0]!.cert!;
  const key = parsed.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!]![0]!.key!;
  return forge.pki.certificateToPem(cert) + forge.pki.privateKeyToPem(key);
}
