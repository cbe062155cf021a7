/**
 * Remote WebIDs (issue 4): a certificate whose WebID document lives on another server is checked
 * by dereferencing it, under the outgoing-address rules: on loopback it is refused (the key cannot
 * be found: 401) unless the server runs with --allow-internal-urls, and then the agent is known.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { issueCredentials, rsaPublicKey } from '../src/auth/certificates.js';
import { ns } from '../src/rdf/namespaces.js';
import { removeTempDirs } from './helpers.js';
import { assertRdfError, header, makePublic, startServer, type TestServer } from './http-helpers.js';

after(removeTempDirs);

describe('remote WebIDs', () => {
  let profiles: Server;
  let webId: string;
  let pem: string;
  let fetched = 0;

  before(async () => {
    profiles = createServer((req, res) => {
      fetched++;
      const key = rsaPublicKey(pem.slice(0, pem.indexOf('-----BEGIN PRIVATE KEY-----')))!;
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end(`<#me> a <${ns.foaf}Person> ; <${ns.cert}key> [ a <${ns.cert}RSAPublicKey> ; <${ns.cert}modulus> "${key.modulus}"^^<${ns.xsd}hexBinary> ; <${ns.cert}exponent> ${key.exponent} ] .`);
    });
    await new Promise<void>((resolve) => profiles.listen(0, '127.0.0.1', () => resolve()));
    webId = `http://127.0.0.1:${(profiles.address() as { port: number }).port}/profile#me`;
    const credentials = await issueCredentials({ commonName: 'Remote', webId });
    pem = credentials.certPem + credentials.keyPem;
  });
  after(() => new Promise<void>((resolve) => profiles.close(() => resolve())));

  for (const allowed of [false, true]) {
    it(allowed ? 'with --allow-internal-urls, dereferences the WebID and knows the agent (cached)' : 'refuses to dereference a loopback WebID by default: 401, nothing fetched', async () => {
      let s: TestServer | undefined;
      try {
        s = await startServer(allowed ? ['--allow-internal-urls'] : []);
        await makePublic(s);
        const before = fetched;
        const res = await s.request('GET', '/', { as: { pem } });
        if (!allowed) {
          assertRdfError(res, 401);
          assert.equal(fetched, before, 'the loopback address was never contacted');
          return;
        }
        assert.equal(res.status, 200, res.body);
        assert.ok(String(header(res, 'link')).includes(`<${webId}>; rel="${ns.acl}agent"`));
        await s.request('GET', '/', { as: { pem } });
        assert.equal(fetched, before + 1, 'the WebID document is cached');
      } finally {
        await s?.close();
      }
    });
  }
});
