/**
 * A bootstrapped data directory made once per test run and copied for every in-process server
 * (http-helpers.ts `startServer`): a bootstrap makes three RSA keys and some thirty commits, seconds
 * on a shared machine, and is tested on its own (http-bootstrap, serve-startup). The template is
 * made by `serve` itself, at TEMPLATE_BASE, and kept per run (the test runner's process) and per
 * version of the sources, so a change to the code that writes it makes a new one.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveConfig } from '../src/config.js';
import { serve } from '../src/server.js';

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

let made: Promise<string> | undefined;

/** The run's template directory (made on first use; files of one run started together may each make one, and the first kept wins). */
export function bootstrapTemplate(): Promise<string> {
  made ??= (async () => {
    const dir = join(tmpdir(), `${PREFIX}${process.ppid}-${sourcesDigest(join(import.meta.dirname, '..'))}`);
    if (existsSync(dir)) return dir;
    removeStale();
    const building = mkdtempSync(join(tmpdir(), 'lodestone-template-building-'));
    try {
      const config = serveConfig(['--data', building, '--base', TEMPLATE_BASE, '--port', '0', '--host', 'localhost', '--no-watch', '--access-log', 'off']);
      if (config === 'help') throw new Error('unexpected --help');
      await (await serve(config, () => undefined)).close();
      renameSync(building, dir); // whole or not at all
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(dir)) throw error; // else another file of the run made it first
    }
    return dir;
  })();
  return made;
}
