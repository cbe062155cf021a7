/**
 * Bootstrapped data directories made once per test run and copied for every test server
 * (http-helpers.ts `startServer`): a bootstrap makes three RSA keys and some thirty commits, seconds
 * on a shared machine, and is tested on its own (http-bootstrap, serve-startup). In process, one
 * template at TEMPLATE_BASE; over TLS, where the base names the port listened on, one per port of
 * a small fixed range, each port held by one test process at a time (`takeTlsPort`). Templates are
 * made by `serve` itself and kept per run (the test runner's process) and per version of the
 * sources, so a change to the code that writes them makes new ones.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveConfig } from '../src/config.js';
import { serve } from '../src/server.js';
import { ROOT } from './root.js';

/** The base of every server started from the template: no one listens on port 1, so nothing reaches another server by mistake. */
export const TEMPLATE_BASE = 'https://localhost:1/';

const PREFIX = 'lodestone-template-';

/** A digest of what decides the template's content: the sources and the locked dependencies. */
function sourcesDigest(root: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
  for (const file of files) hash.update(file).update(readFileSync(join(root, 'src', file)));
  hash.update(readFileSync(join(root, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the templates of runs that have ended. */
function removeStale(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^lodestone-template-(\d+)-/.exec(name)?.[1]);
    if (pid && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

const made = new Map<string, Promise<string>>();

/** The run's template for `base` (made on first use; files of one run started together may each make one, and the first kept wins). */
function template(name: string, base: string): Promise<string> {
  let dir = made.get(name);
  if (!dir) made.set(name, (dir = makeTemplate(join(tmpdir(), `${PREFIX}${process.ppid}-${sourcesDigest(ROOT)}${name}`), base)));
  return dir;
}

async function makeTemplate(dir: string, base: string): Promise<string> {
  if (existsSync(dir)) return dir;
  removeStale();
  const building = mkdtempSync(join(tmpdir(), 'lodestone-template-building-'));
  try {
    const config = serveConfig(['--data', building, '--base', base, '--port', '0', '--host', 'localhost', '--no-watch', '--access-log', 'off']);
    if (config === 'help') throw new Error('unexpected --help');
    await (await serve(config, () => undefined)).close();
    renameSync(building, dir); // whole or not at all
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dir)) throw error; // else another file of the run made it first
  }
  return dir;
}

/**
 * A copy of a template at `to` (absent or empty), folders with their modes: its pack files
 * linked rather than copied, since neither the server nor git ever changes a pack in place (a
 * pack is written aside and renamed, and merged into a new one), and copied otherwise. Half the
 * work of fs.cpSync here, whose checks cost more than the copies: a test server starts on it.
 */
export function copyTemplate(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  chmodSync(to, statSync(from).mode & 0o777);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) copyTemplate(source, target);
    else if (from.endsWith(join('objects', 'pack'))) linkSync(source, target);
    else copyFileSync(source, target);
  }
}

/** The run's template for in-process servers, at TEMPLATE_BASE. */
export function bootstrapTemplate(): Promise<string> {
  return template('', TEMPLATE_BASE);
}

/**
 * The ports of TLS test servers started from a template: below Linux's ephemeral range (32768 and
 * up), where `freePort` finds the others, so that no port the system hands out is among them.
 */
const TLS_PORTS = { first: 29_170, count: 32 };

/** The TLS ports this process holds, each given up when it exits (a port is never handed out twice by one process: a test may restart its server there). */
const held: string[] = [];
process.once('exit', () => {
  for (const lock of held) rmSync(lock, { force: true });
});

/**
 * A TLS port of the range no other test process holds (a lock file naming the holder's pid, taken
 * from a holder that has ended), held until this process exits; undefined when all are held.
 */
export function takeTlsPort(after = 0): number | undefined {
  for (let port = Math.max(after + 1, TLS_PORTS.first); port < TLS_PORTS.first + TLS_PORTS.count; port++) {
    const lock = join(tmpdir(), `lodestone-tls-port-${port}`);
    if (held.includes(lock)) continue;
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(lock, String(process.pid), { flag: 'wx' });
        held.push(lock);
        return port;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number(readFileSync(lock, 'utf8'));
        if (holder && alive(holder)) break;
        rmSync(lock, { force: true }); // its holder has ended
      }
    }
  }
  return undefined;
}

/** The run's template for TLS servers on `port` (at https://localhost:<port>/). */
export function tlsTemplate(port: number): Promise<string> {
  return template(`-${port}`, `https://localhost:${port}/`);
}
