/**
 * The in-process client (in-process.ts) against real TLS on one server: the same requests, as the
 * owner, a stranger and anonymously, get the same status, the same header fields in the same order
 * (repeated ones too) and the same body bytes, but the Date; a body sent in slow chunks arrives
 * whole; the identity of the client certificate and the client's address reach the server alike.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { inProcess, type InProcess } from './in-process.js';
import { serverForFile, signUp, turtle, type Stranger, type TestServer } from './http-helpers.js';

let s: TestServer;
let local: InProcess;
let stranger: Stranger;
serverForFile(async (server) => {
  s = server;
  local = await inProcess(s.running.handle);
  stranger = await signUp(s, 'Stranger');
  assert.equal((await s.request('PUT', 'same/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "same" .' })).status, 201);
}, [], { tls: true });

interface Seen {
  status: number;
  /** Name and value of every header field, in order, but the Date. */
  fields: string[];
  bytes: Buffer;
}

type Way = 'tls' | 'in process';

/** One request on a connection of its own, by `way`; `send` writes and ends the body. */
function exchange(way: Way, method: string, path: string, headers: Record<string, string>, pem: string | undefined, send: (req: ClientRequest) => void = (req) => void req.end(), address?: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const fields: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() !== 'date') fields.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, fields, bytes: Buffer.concat(chunks) });
      });
    };
    const options = { host: 'localhost', port: s.port, method, path, headers };
    const req = way === 'tls'
      ? httpsRequest({ ...options, agent: false, rejectUnauthorized: false, ...(pem ? { cert: pem, key: pem } : {}), ...(address ? { localAddress: address } : {}) }, onResponse)
      : local.request(options, { address, tls: { certificate: pem } }, onResponse);
    req.on('error', reject);
    send(req);
  });
}

/** The request by TLS and in process, after a first time (which may take the Koa path where the next take the read fast path, whose header fields come in another order). */
async function alike(method: string, path: string, headers: Record<string, string>, pem: string | undefined): Promise<Seen> {
  await exchange('tls', method, path, headers, pem);
  const [wire, here] = [await exchange('tls', method, path, headers, pem), await exchange('in process', method, path, headers, pem)];
  assert.deepEqual({ ...here, bytes: here.bytes.toString('base64') }, { ...wire, bytes: wire.bytes.toString('base64') }, `${method} ${path} ${JSON.stringify(headers)}`);
  return wire;
}

describe('the in-process client', () => {
  it('gets what TLS gets: status, every header field in order, body bytes; as the owner, a stranger and anonymously', async () => {
    const owner = s.ownerPem;
    for (const pem of [owner, stranger.pem, undefined]) {
      for (const accept of ['text/turtle', 'application/ld+json', 'text/html']) {
        await alike('GET', '/same/', { Accept: accept }, pem);
        await alike('HEAD', '/same/', { Accept: accept }, pem);
      }
      await alike('GET', '/missing/', { Accept: 'text/turtle' }, pem); // an error body
      await alike('GET', '/admin/acl/groups/owners/', { Accept: 'text/turtle' }, pem); // a refusal, or the group
      await alike('OPTIONS', '/same/', {}, pem);
      await alike('GET', '/same/', { Accept: 'text/turtle', Origin: 'https://elsewhere.example' }, pem); // credentials do not count
    }
    const read = await alike('GET', '/same/', { Accept: 'text/turtle' }, owner);
    const etag = read.fields.find((f) => f.toLowerCase().startsWith('etag: '))!.slice(6);
    assert.equal((await alike('GET', '/same/', { Accept: 'text/turtle', 'If-None-Match': etag }, owner)).status, 304);
    assert.equal((await alike('GET', '/sparql?query=ASK%20%7B%7D', { Accept: 'application/sparql-results+json' }, owner)).status, 200);
    const profile = await alike('GET', new URL(stranger.profile).pathname, { Accept: 'application/n-triples' }, stranger.pem);
    assert.ok(profile.fields.some((f) => /^link: .*acl#agent/i.test(f) && f.includes(stranger.webId)), 'the certificate names the agent');
  });

  it('delivers a body written in slow chunks whole, and answers as TLS does', async () => {
    const slowly = (req: ClientRequest) => {
      const lines = Array.from({ length: 5 }, (_, i) => `<#this> <http://example.org/n${i}> ${i} .\n`);
      const next = () => (lines.length ? req.write(lines.shift()!, () => setTimeout(next, 30)) : req.end());
      next();
    };
    const headers = { ...turtle, 'Transfer-Encoding': 'chunked' };
    const wire = await exchange('tls', 'PUT', '/slow-wire/', headers, s.ownerPem, slowly);
    const here = await exchange('in process', 'PUT', '/slow-here/', headers, s.ownerPem, slowly);
    assert.equal(here.status, 201);
    assert.equal(wire.status, 201);
    const names = (seen: Seen) => seen.fields.map((f) => f.split(':')[0]!.toLowerCase());
    assert.deepEqual(names(here), names(wire));
    for (const path of ['/slow-wire/', '/slow-here/']) {
      const stored = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
      assert.equal(stored.body.split('\n').filter((l) => l.includes('http://example.org/n')).length, 5, path);
    }
  });

  it('gives the server the client’s address: the sixth signup from one address is refused, not one from another (over TLS: http-requester-bounds)', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const signup = (address: string, i: number) =>
      exchange('in process', 'POST', '/admin/sign%20up', form, undefined, (req) => void req.end(new URLSearchParams({ name: `N${i}`, email: `n${i}@example.org`, password: 'correct horse battery' }).toString()), address);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signup('127.0.0.61', i)).status);
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429]);
    assert.equal((await signup('127.0.0.62', 6)).status, 201);
  });
});
