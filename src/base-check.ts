/**
 * A data directory is made for one base URL: its documents and agents are named under it. Before
 * anything is opened, the base it was made for is read back (from the owner's WebID, else from the
 * end-user repository's `.git/lodestone/dataspace.json`), and a start under another base is refused
 * with the command that starts it as it was made.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCredentials, webIdsOf } from './auth/certificates.js';
import { secretsDir } from './bootstrap.js';
import type { ServeConfig } from './config.js';
import type { DataspaceDescription } from './dataspace.js';

/** The end-user base the data directory was made for, or undefined for a new one. */
export async function madeFor(data: string, endUserDescription: string): Promise<string | undefined> {
  const owner = join(secretsDir(data), 'owner.pem');
  if (existsSync(owner)) {
    // bootstrap.ts names the owner `<base>admin/acl/agents/<id>/#this`
    const webId = webIdsOf(new X509Certificate((await readCredentials(owner)).certPem))[0] ?? '';
    const base = /^(.+\/)admin\/acl\/agents\/[^/]+\/#this$/.exec(webId)?.[1];
    if (base) return base;
  }
  if (!existsSync(endUserDescription)) return undefined;
  return (JSON.parse(readFileSync(endUserDescription, 'utf8')) as DataspaceDescription).base;
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `serve` command that gives `config` the base `base`: only a port when that is enough. */
export function commandFor(config: Pick<ServeConfig, 'data' | 'host' | 'port' | 'http'>, base: string): string {
  const url = new URL(base);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const byDefault = new URL(`${config.http ? 'http' : 'https'}://${config.host}:${port}/`).href === url.href;
  const flags = ['--data', config.data, ...(byDefault ? ['--port', port] : ['--base', base, '--port', String(config.port)])];
  if (config.host !== 'localhost') flags.push('--host', config.host);
  if (config.http) flags.push('--http');
  return `npx lodestone serve ${flags.map(shellWord).join(' ')}`;
}

/** Throws when the data directory was made for another base than `config.base`. */
export async function checkBase(config: Pick<ServeConfig, 'data' | 'base' | 'host' | 'port' | 'http'>, endUserDescription: string): Promise<void> {
  const base = await madeFor(config.data, endUserDescription);
  if (base === undefined || base === config.base) return;
  throw new Error(`the data in ${config.data} was made for ${base}, not ${config.base}; start it with: ${commandFor(config, base)}`);
}
