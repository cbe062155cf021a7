import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serveConfig } from '../src/config.js';
import { serve } from '../src/server.js';
import { ns } from '../src/rdf/namespaces.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, startServer, turtle } from './http-helpers.js';

after(removeTempDirs);

describe('the system configuration (SPEC §9.1)', () => {
  it('is written on first start and versions the end-user dataspace locally', async () => {
    const s = await startServer([], undefined, undefined, {}, { bootstrap: true });
    try {
      const text = readFileSync(join(s.data, 'system.ttl'), 'utf8');
      assert.match(text, new RegExp(`<${s.base}> lds:versioningRepository`));
      assert.match(text, /a doap:GitRepository/);
      assert.match(String((await s.request('GET', '/')).headers.link), /rel="timemap"/);
    } finally {
      await s.close();
    }
  });

  it('turns versioning off when the triple is removed, and on again when it is back', async () => {
    const data = tempDir('config');
    let s = await startServer([], data);
    await s.request('PUT', '/kept/', { headers: turtle, body: '<#this> a <http://ex/T> .' });
    const port = s.port;
    await s.close();
    const versioned = readFileSync(join(data, 'system.ttl'), 'utf8');
    writeFileSync(join(data, 'system.ttl'), `@prefix lds: <${ns.lds}> .\n`);
    s = await startServer(['--port', String(port)], data);
    try {
      assertRdfError(await s.request('GET', '/kept/?timemap'), 404);
      assertRdfError(await s.request('GET', '/kept/?timemap', { headers: { Accept: 'application/link-format' } }), 406);
      assert.doesNotMatch(String((await s.request('GET', '/kept/')).headers.link ?? ''), /timemap/);
    } finally {
      await s.close();
    }
    writeFileSync(join(data, 'system.ttl'), versioned);
    s = await startServer(['--port', String(port)], data);
    try {
      assert.equal((await s.request('GET', '/kept/?timemap', { headers: { Accept: 'application/link-format' } })).status, 200);
    } finally {
      await s.close();
    }
  });

  it('refuses a credentials file that others can read (the secret is not enabled)', async () => {
    const data = tempDir('config');
    const port = await freePort();
    writeFileSync(join(data, 'system.ttl'), [
      `@prefix lds: <${ns.lds}> . @prefix doap: <${ns.doap}> .`,
      `<https://localhost:${port}/> lds:versioningRepository <urn:repo> .`,
      '<urn:repo> a doap:GitRepository ; doap:location <https://github.com/example/data> .',
    ].join('\n'));
    mkdirSync(join(data, 'secrets'), { recursive: true });
    writeFileSync(join(data, 'secrets', 'credentials.ttl'), `<urn:repo> <${ns.a}authToken> "github_pat_OPEN456" .\n`, { mode: 0o644 });
    chmodSync(join(data, 'secrets', 'credentials.ttl'), 0o644);
    const lines: string[] = [];
    const config = serveConfig(['--data', data, '--port', String(port), '--no-watch']);
    const running = await serve(config as Exclude<typeof config, 'help'>, (line) => lines.push(line));
    try {
      const log = lines.join('\n');
      assert.match(log, /credentials\.ttl can be read by others: its tokens are not used \(chmod 600 it/);
      assert.match(log, /no a:authToken for <urn:repo>.*not mirroring/);
      assert.equal(running.runtimes[0]!.mirror, undefined);
      assert.doesNotMatch(log, /OPEN456/);
    } finally {
      await running.close();
    }
  });

  it('reads the access token from the credentials file and never logs it', async () => {
    const data = tempDir('config');
    const port = await freePort();
    const base = `https://localhost:${port}/`;
    writeFileSync(join(data, 'system.ttl'), [
      `@prefix lds: <${ns.lds}> . @prefix doap: <${ns.doap}> . @prefix repo: <${ns.repo}> .`,
      `<${base}> lds:versioningRepository <urn:repo> .`,
      '<urn:repo> a doap:GitRepository ; doap:location <https://github.com/example/data> ; repo:branch "history" .',
    ].join('\n'));
    mkdirSync(join(data, 'secrets'), { recursive: true });
    writeFileSync(join(data, 'secrets', 'credentials.ttl'), `<urn:repo> <${ns.a}authToken> "github_pat_SECRET123" .\n`, { mode: 0o600 });
    const lines: string[] = [];
    const config = serveConfig(['--data', data, '--port', String(port), '--no-watch', '--github-api', `http://127.0.0.1:${await freePort()}`]);
    assert.notEqual(config, 'help');
    const running = await serve(config as Exclude<typeof config, 'help'>, (line) => lines.push(line));
    try {
      const log = lines.join('\n');
      assert.match(log, /end-user: versioned on branch history, mirrored to https:\/\/github.com\/example\/data/);
      assert.match(log, /mirror https:\/\/github.com\/example\/data: pushing branch history through GitHub REST API/);
      assert.doesNotMatch(log, /SECRET123/);
      assert.equal(running.runtimes[0]!.dataspace.store.branch, 'history');
    } finally {
      await running.close();
    }
  });
});
