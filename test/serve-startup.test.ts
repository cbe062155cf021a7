/**
 * Starting `lodestone serve` (src/data-lock.ts, src/base-check.ts, src/server.ts): one server per
 * data directory (a second start is refused and names the holder; a stale lock after SIGKILL is
 * taken over, by exactly one of several racers), a data directory started under another base is
 * refused with the command that starts it, and the ready line names the address it listens on;
 * a start that fails closes all it built (no worker thread is left); a server answers through its
 * request listener in process, without TLS. Real processes: the CLI as children, racers taking the lock at one agreed moment.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { commandFor } from '../src/base-check.js';
import { serveConfig } from '../src/config.js';
import { lockFile } from '../src/data-lock.js';
import { serve as serveInProcess } from '../src/server.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { freePort, sendRequest, startServer } from './http-helpers.js';

after(removeTempDirs);

interface Child {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  /** 'listening' once the ready line is out, or the exit code if it exits first. */
  outcome: Promise<'listening' | number | null>;
  exited: Promise<number | null>;
}

/** Runs a script with Node: a TypeScript one through tsx; the CLI as `lodestone` runs (bin/lodestone.js: the build, the sources when it is stale). */
function run(args: string[]): Child {
  const child = spawn(process.execPath, [...(args[0]!.endsWith('.ts') ? ['--import', 'tsx'] : []), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const outcome = new Promise<'listening' | number | null>((resolve) => {
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on/.test(out)) resolve('listening');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    void exited.then(resolve);
  });
  return { child, out: () => out, outcome, exited };
}

/** The first match of `pattern` in what `r` printed, once it is there; undefined if it exits first. */
async function waitFor(r: Child, pattern: RegExp): Promise<RegExpExecArray | undefined> {
  while (!pattern.test(r.out()) && r.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
  return pattern.exec(r.out()) ?? undefined;
}

const serve = (data: string, ...flags: string[]) => run(['bin/lodestone.js', 'serve', '--data', data, '--access-log', 'off', ...flags]);

async function kill(server: Child, signal: NodeJS.Signals): Promise<number | null> {
  server.child.kill(signal);
  return server.exited;
}

const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('one server per data directory', () => {
  it('lets exactly one of several processes take a stale lock, and the others name it', async () => {
    const data = tempDir('race');
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    const stale = JSON.stringify({ pid: dead.pid, started: new Date().toISOString(), base: 'https://localhost:1/' });
    writeFileSync(lockFile(data), stale);
    const racers = Array.from({ length: 5 }, () => run(['test/fixtures/lock-racer.ts', data]));
    try {
      // the moment agreed once all are loaded (a fixed delay is either waited out or, on a loaded machine, too short)
      await Promise.all(racers.map((r) => waitFor(r, /^ready$/m)));
      const at = Date.now() + 100;
      for (const r of racers) r.child.stdin.write(`go ${at}\n`);
      const said = await Promise.all(racers.map(async (r) => (await waitFor(r, /^(won|lost: .*)$/m))?.[1] ?? r.out()));
      const winners = racers.filter((_, i) => said[i] === 'won');
      assert.equal(winners.length, 1, said.join('\n'));
      const winner = winners[0]!.child.pid!;
      for (const line of said.filter((l) => l !== 'won')) assert.match(line, new RegExp(`^lost: .* is in use by another Lodestone server: process ${winner}\\b`));
      assert.equal(JSON.parse(readFileSync(lockFile(data), 'utf8')).pid, winner);
      assert.match(racers.map((r) => r.out()).join(''), new RegExp(`taking over the lock of process ${dead.pid}, which is no longer running`));
    } finally {
      await Promise.all(racers.map((r) => kill(r, 'SIGKILL')));
    }
  });

  it('refuses a second serve, takes over after SIGKILL (one of two racing serves listens), and releases the lock on exit', async () => {
    const data = tempDir('lock');
    const [portA, portB] = [await freePort(), await freePort()];
    const base = `https://localhost:${portA}/`;
    const first = serve(data, '--port', String(portA));
    assert.equal(await first.outcome, 'listening', first.out());
    assert.equal(JSON.parse(readFileSync(lockFile(data), 'utf8')).pid, first.child.pid);

    // told the same base on another port: refused, naming the holder and what to do
    const second = serve(data, '--port', String(portB), '--base', base);
    assert.equal(await second.outcome, 1, second.out());
    assert.match(second.out(), new RegExp(`in use by another Lodestone server: process ${first.child.pid}, serving ${quoted(base)} \\(on localhost port ${portA}\\)`));
    assert.match(second.out(), new RegExp(`Stop it first \\(kill ${first.child.pid}\\)`));
    assert.equal((await sendRequest(base, { rejectUnauthorized: false, agent: false })).status, 403, 'the first still answers');

    assert.equal(await kill(first, 'SIGKILL'), null);
    assert.ok(existsSync(lockFile(data)), 'a killed server leaves its lock behind');
    const racers = [serve(data, '--port', String(portA)), serve(data, '--port', String(portB), '--base', base)];
    const outcomes = await Promise.all(racers.map((r) => r.outcome));
    assert.equal(outcomes.filter((o) => o === 'listening').length, 1, racers.map((r) => r.out()).join('\n---\n'));
    const winner = racers[outcomes.indexOf('listening')]!;
    const loser = racers[1 - outcomes.indexOf('listening')]!;
    assert.equal(await loser.exited, 1);
    assert.match(loser.out(), new RegExp(`process ${winner.child.pid}, serving ${quoted(base)}`));
    assert.match(racers.map((r) => r.out()).join(''), new RegExp(`taking over the lock of process ${first.child.pid}`));
    if (winner === racers[1]) assert.match(winner.out(), new RegExp(`listening on ${quoted(base)} \\(on [^ ]+ port ${portB}\\)`));

    await kill(winner, 'SIGKILL');
    const third = serve(data, '--port', String(portA));
    assert.equal(await third.outcome, 'listening', third.out());
    assert.match(third.out(), new RegExp(`taking over the lock of process ${winner.child.pid}`));
    // reindex only reads the repositories: it runs beside the server and asks it to rebuild
    const reindex = run(['bin/lodestone.js', 'reindex', '--data', data]);
    assert.equal(await reindex.exited, 0, reindex.out());
    assert.match(reindex.out(), new RegExp(`asked the server on ${quoted(data)} \\(process ${third.child.pid}, serving ${quoted(base)}`));
    // both dataspaces rebuild; a rebuild still under way would log between "stopping" and "stopped"
    while (!/end-user: index rebuilt from[^]*admin: index rebuilt from|admin: index rebuilt from[^]*end-user: index rebuilt from/.test(third.out())) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await kill(third, 'SIGTERM'), 0);
    assert.match(third.out(), /SIGTERM: stopping \(finishing the writes under way\)\nstopped\n/, 'a stop says so');
    assert.equal(existsSync(lockFile(data)), false, 'a server that stops removes its lock');

    // another port: refused before anything is opened, with the command that starts it
    const elsewhere = serve(data, '--port', String(portB));
    assert.equal(await elsewhere.outcome, 1, elsewhere.out());
    assert.match(elsewhere.out(), new RegExp(`the data in ${quoted(data)} was made for ${quoted(base)}, not https://localhost:${portB}/; start it with: npx lodestone serve --data ${quoted(data)} --port ${portA}\n`));
    assert.doesNotMatch(elsewhere.out(), /owner\.pem/);
    const description = join(data, 'dataspaces', 'end-user', '.git', 'lodestone', 'dataspace.json');
    assert.equal(JSON.parse(readFileSync(description, 'utf8')).base, base, 'the refused start rewrote nothing');
    assert.equal(existsSync(lockFile(data)), false, 'a refused start leaves no lock');
  });
});

describe('the base a data directory was made for', () => {
  it('names a port when the base is the default of one, else the base', () => {
    const config = { data: '/srv/my data', host: 'localhost', port: 5000, http: false };
    assert.equal(commandFor(config, 'https://localhost:4443/'), `npx lodestone serve --data '/srv/my data' --port 4443`);
    assert.equal(commandFor(config, 'https://localhost/'), `npx lodestone serve --data '/srv/my data' --port 443`);
    assert.equal(commandFor(config, 'https://example.org/'), `npx lodestone serve --data '/srv/my data' --base https://example.org/ --port 5000`);
    assert.equal(commandFor({ ...config, http: true, host: '127.0.0.1' }, 'http://127.0.0.1:8080/'), 'npx lodestone serve --data \'/srv/my data\' --port 8080 --host 127.0.0.1 --http');
  });

  it('is refused in process too, and the ready line says where it listens when the base names another port', async () => {
    const lines: string[] = [];
    const data = tempDir('ready');
    const other = await freePort();
    const s = await startServer(['--base', `https://localhost:${other}/`], data, (line) => lines.push(line));
    await s.close();
    assert.ok(lines.some((l) => new RegExp(`^listening on https://localhost:${other}/ \\(on [^ ]+ port ${s.port}\\)$`).test(l)), lines.join('\n'));
    await assert.rejects(startServer([], data), new RegExp(`was made for https://localhost:${other}/, not https://localhost:\\d+/; start it with: npx lodestone serve --data ${quoted(data)} --port ${other}$`));
  });
});

describe('in process', () => {
  const listening = async (server: Server) => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as { port: number }).port;
  };

  it('closes all it built when it cannot listen: no worker thread of it is left, and the data directory is free', async () => {
    const data = tempDir('no-listen');
    const first = await startServer([], data);
    await first.close(); // the directory made, and the threads a start makes (and a stop ends) known
    const threads = () => readdirSync('/proc/self/task').length; // Linux: every thread of this process, workers included
    const before = threads();
    const taken = createServer();
    const port = await listening(taken);
    try {
      const config = serveConfig(['--data', data, '--base', first.base, '--port', String(port), '--host', '127.0.0.1', '--no-watch', '--access-log', 'off']);
      if (config === 'help') throw new Error('unexpected --help');
      await assert.rejects(serveInProcess(config, () => undefined), /EADDRINUSE/);
    } finally {
      taken.close();
    }
    // a terminated worker's thread is gone once its exit is reported; give the kernel a moment to drop it
    for (let tries = 0; tries < 40 && threads() > before; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(threads() <= before, `${threads()} threads after the failed start, ${before} before it`);
    await (await startServer(['--base', first.base], data)).close(); // and the lock was released
  });

  it('answers through its request listener, in process and without TLS, as over HTTPS', async () => {
    const s = await startServer();
    const plain = createServer(s.running.handle);
    try {
      const port = await listening(plain);
      const answer = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/ns', headers: { host: new URL(s.base).host, accept: 'text/turtle' } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
        });
        req.on('error', reject).end();
      });
      const over = await s.request('GET', '/ns', { as: 'anonymous', headers: { accept: 'text/turtle' } });
      assert.equal(answer.status, 200, answer.body);
      assert.match(answer.type, /^text\/turtle/);
      assert.equal(answer.body, over.body);
    } finally {
      plain.close();
      await s.close();
    }
  });
});

describe('stopping', () => {
  it('stops cleanly at once after the ready line, while the index workers may still be loading', async () => {
    // the index loads beside the first requests; a stop in that moment must not abort the process
    // (Node 20 aborts when a worker is terminated while it loads an ES module)
    const data = tempDir('stop-early');
    const port = String(await freePort());
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      // under tsx, as before: its workers load their modules more slowly, which widens the moment this test is about
      const server = run(['--import', 'tsx', 'bin/lodestone.js', 'serve', '--data', data, '--port', port, '--access-log', 'off']);
      assert.equal(await server.outcome, 'listening', server.out());
      assert.equal(await kill(server, signal), 0, server.out());
      assert.match(server.out(), new RegExp(`${signal}: stopping \\(finishing the writes under way\\)\nstopped\n$`));
      assert.equal(existsSync(lockFile(data)), false);
    }
  });
});
