/**
 * The access log (src/http/access-log.ts): one well-formed line per request, whichever path
 * answers it (the Koa app, the read fast path, an error, a 304, a request Node's parser refuses),
 * with the agent's WebID or `-`; and requests the parser refuses (a 100 KB header, a malformed
 * request line) get an RDF error body (SPEC §2.4) while the server goes on answering.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

const LINE = /^(\S+) (\S+) (\S+) (\S+) (\d{3}|-) (\d+) (\d+\.\d|-)( aborted)?$/;
let s: TestServer;
let logFile: string;

before(async () => {
  logFile = join(tempDir('access'), 'access.log');
  s = await startServer(['--access-log', logFile], undefined, undefined, {}, { tls: true }); // bytes on real connections
});
after(async () => {
  await s.close();
  removeTempDirs();
});

/** The log's lines, once it has at least `count` of them. */
async function logLines(count: number): Promise<string[]> {
  for (;;) {
    const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= count) return lines;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends, as the owner, the head of a PUT whose body never comes, and leaves once the server asked for it (100 Continue). */
function abandonedRequest(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const head = `PUT ${path} HTTP/1.1\r\nHost: localhost:${s.port}\r\nContent-Type: text/turtle\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`;
    const socket = connect({ host: 'localhost', port: s.port, rejectUnauthorized: false, cert: s.ownerPem, key: s.ownerPem }, () => socket.write(head));
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString().startsWith('HTTP/1.1 100 ')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

/** Sends raw bytes over TLS and parses the one response that comes back before the server closes. */
function rawRequest(bytes: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: 'localhost', port: s.port, rejectUnauthorized: false }, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine, ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body });
    });
  });
}

describe('the access log', () => {
  it('has one line per request: Koa, the fast path, a 304, a HEAD, an error, an anonymous request', async () => {
    const owner = s.running.agents.owner.webId;
    const sent: Array<{ method: string; path: string; res: Response; agent: string }> = [];
    // the agent is `-` when anonymous, and when the request is refused before anyone is identified
    const send = async (method: string, path: string, options: Parameters<TestServer['request']>[2] = {}, identified = true) => {
      const res = await s.request(method, path, options);
      sent.push({ method, path, res, agent: options.as === 'anonymous' || !identified ? '-' : owner });
      return res;
    };
    assert.equal((await send('PUT', 'logged/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "logged" .' })).status, 201);
    assert.equal((await send('GET', 'logged/')).status, 200); // Koa, which caches the serialisation
    const fast = await send('GET', 'logged/'); // the read fast path answers this one
    assert.equal(fast.status, 200);
    assert.equal((await send('GET', 'logged/', { headers: { 'If-None-Match': header(fast, 'etag')! } })).status, 304);
    assert.equal((await send('HEAD', 'logged/')).status, 200);
    assertRdfError(await send('GET', 'missing/?a=b%20c&d'), 404);
    assertRdfError(await send('GET', 'logged/', { as: 'anonymous' }), 403);
    assertRdfError(await send('GET', 'empty//segment/', {}, false), 400); // refused before routing

    const lines = await logLines(sent.length);
    assert.equal(lines.length, sent.length, lines.join('\n'));
    const started = Date.now() - 60_000;
    lines.forEach((line, i) => {
      const { method, path, res, agent } = sent[i]!;
      const [, time, who, verb, url, status, bytes, ms] = LINE.exec(line) ?? assert.fail(`not a well-formed line: ${line}`);
      assert.ok(Date.parse(time!) > started && time === new Date(Date.parse(time!)).toISOString(), line);
      assert.deepEqual([who, verb, url, Number(status)], [agent, method, `/${path}`, res.status], line);
      const body = method === 'HEAD' || res.status === 304 ? 0 : Buffer.byteLength(res.body);
      assert.equal(Number(bytes), body, line);
      assert.ok(Number(ms) >= 0, line);
    });
    assert.doesNotMatch(lines.join('\n'), /BEGIN|Cookie|Client-Cert/i, 'no certificate or header is logged');
  });

  it('never logs the value of a query parameter that carries a secret: an OpenID callback’s code and state, a token (issue 25)', async () => {
    const before = readFileSync(logFile, 'utf8').split('\n').filter(Boolean).length;
    await s.request('GET', 'admin/oauth2/authorize/nowhere?code=SECRET-CODE&state=SECRET-STATE&iss=https%3A%2F%2Fid.example', { as: 'anonymous' });
    await s.request('GET', 'logged/?access_token=SECRET-TOKEN&lang=es', { as: 'anonymous' });
    const lines = (await logLines(before + 2)).slice(before);
    assert.doesNotMatch(lines.join('\n'), /SECRET/, lines.join('\n'));
    assert.match(lines[0]!, / \/admin\/oauth2\/authorize\/nowhere\?code=…&state=…&iss=https%3A%2F%2Fid\.example /);
    assert.match(lines[1]!, / \/logged\/\?access_token=…&lang=es /);
  });

  it('answers a 100 KB header with 431 and a malformed request with 400, as RDF, and goes on serving', async () => {
    const before = (await logLines(0)).length;
    const junk = await s.request('GET', 'logged/', { headers: { 'X-Junk': 'x'.repeat(100_000) } });
    assertRdfError(junk, 431, { title: /header fields are too large/ });
    assert.equal(header(junk, 'connection'), 'close');
    assert.equal((await s.request('GET', 'logged/')).status, 200, 'the server still answers');

    const malformed = await rawRequest('NOT HTTP AT ALL\r\n\r\n');
    assertRdfError(malformed, 400, { title: /not well-formed HTTP/ });
    assert.equal(header(malformed, 'connection'), 'close');
    assert.equal((await s.request('GET', 'logged/', { as: 'anonymous' })).status, 403, 'the server still answers');

    const lines = (await logLines(before + 4)).slice(before);
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(lines[0]!, new RegExp(`^\\S+ - - - 431 ${Buffer.byteLength(junk.body)} -$`));
    assert.match(lines[1]!, / GET \/logged\/ 200 /);
    assert.match(lines[2]!, new RegExp(`^\\S+ - - - 400 ${Buffer.byteLength(malformed.body)} -$`));
    assert.match(lines[3]!, / - GET \/logged\/ 403 /);
    for (const line of lines) assert.match(line, LINE);
  });

  it('marks a request the client left before its answer as aborted', async () => {
    const before = (await logLines(0)).length;
    await abandonedRequest('/abandoned/?why=gone');
    const [line] = (await logLines(before + 1)).slice(before);
    assert.match(line!, LINE);
    assert.match(line!, new RegExp(`^\\S+ ${s.running.agents.owner.webId.replace(/[.?/]/g, '\\$&')} PUT /abandoned/\\?why=gone - 0 \\d+\\.\\d aborted$`));
  });
});
