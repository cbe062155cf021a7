/**
 * The one reader of argv and the environment. Every option is declared once, with its default and
 * a one-line description; `--help` is generated from the same table.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { webOrigin } from './net/web-origin.js';
import { TURTLE } from './rdf/media-types.js';
import { parseIndexChoice, type IndexChoice } from './index/engine.js';

interface OptionSpec {
  type: 'string' | 'boolean';
  default?: string | boolean;
  /** The flag may be given more than once; its values are kept in order. */
  multiple?: boolean;
  description: string;
}

export const serveOptions = {
  data: { type: 'string', default: './data', description: 'data directory: one git repository per dataspace, and secrets/' },
  port: { type: 'string', default: '4443', description: 'port to listen on' },
  host: { type: 'string', default: 'localhost', description: 'host name or address to listen on' },
  base: { type: 'string', description: 'base URL of the end-user dataspace (default https://<host>:<port>/)' },
  http: { type: 'boolean', default: false, description: 'serve plain HTTP behind a TLS-terminating proxy (which passes client certificates in Client-Cert)' },
  'trusted-proxy': { type: 'string', description: 'with --http: comma-separated addresses of the TLS-terminating proxy whose Client-Cert header is believed, when it also sends the proxy secret (default: none, every Client-Cert is ignored)' },
  'trusted-proxy-secret-file': { type: 'string', description: 'file holding the secret the trusted proxy sends as Lodestone-Proxy-Secret, readable by its owner only (default: DIR/secrets/proxy-secret, made on first start)' },
  'cors-origin': { type: 'string', multiple: true, description: 'an origin (https://app.example) whose pages may act with the visitor\'s credentials, besides the server\'s own; other origins act as anonymous' },
  'body-limit': { type: 'string', default: '2097152', description: 'largest request body in bytes; larger ones answer 413' },
  'upload-limit': { type: 'string', default: '20971520', description: 'largest file in bytes that may be uploaded to uploads/ (20 MiB); larger ones answer 413 and nothing is written' },
  'sparql-timeout': { type: 'string', default: '30000', description: 'milliseconds a SPARQL query may run before it is stopped' },
  'query-lanes': { type: 'string', default: '2', description: 'copies of each dataspace\'s index that SPARQL queries run on, kept loaded (an admin dataspace\'s from its first query): a slow query holds up only its own, and one agent\'s quick queries hold all but one at most; each beyond the first costs ~35 MB + 0.55-0.9 GB per million triples' },
  'extra-query-lanes': { type: 'string', default: '1', description: 'copies of a dataspace\'s index that may start beside the --query-lanes while queries run past --slow-query-ms, so quicker ones (the same agent\'s too) keep their lanes; each stops after a minute idle; 0 saves the memory' },
  'slow-query-ms': { type: 'string', default: '500', description: 'milliseconds after which a running SPARQL query is slow: its lane no longer counts among those kept for quick queries' },
  index: { type: 'string', default: 'embedded', description: "where each end-user dataspace's index lives, unless system.ttl gives it one (lds:index): embedded (in this process), or a SPARQL server: oxigraph-server:<URL>, fuseki:<URL>, virtuoso:<URL> (see docs/reference.md, \"Index on a SPARQL server\"); admin dataspaces stay embedded" },
  'allow-internal-urls': { type: 'boolean', default: false, description: 'let outgoing requests reach loopback and private addresses, and OpenID providers be plain HTTP' },
  'replica-of': { type: 'string', description: 'serve as a read replica of the primary at this base URL: follow its repositories over git (with DIR/secrets/secretary.pem, copied from the primary with its system.ttl and secrets/), answer reads, send writes to the primary (307)' },
  'replica-ca': { type: 'string', description: "with --replica-of: a PEM file of certificates to trust for the primary besides the system's (its secrets/server.pem when self-signed)" },
  'no-watch': { type: 'boolean', default: false, description: 'do not watch the repositories for git commits and edited .nt files' },
  'github-api': { type: 'string', default: 'https://api.github.com', description: 'REST API root the pusher mirrors GitHub repositories through (GitHub Enterprise: https://HOST/api/v3)' },
  'mirror-pacing': { type: 'string', default: '1000', description: 'least milliseconds between the pusher\'s content-creating API requests (GitHub asks for one second)' },
  'access-log': { type: 'string', default: '-', description: 'where to write one line per request: - (standard output), off, or a file to append to' },
  help: { type: 'boolean', default: false, description: 'show this help' },
} satisfies Record<string, OptionSpec>;

export const reindexOptions = {
  data: serveOptions.data,
  index: { type: 'string', description: "load every end-user dataspace's index from HEAD into this SPARQL server (oxigraph-server:<URL>, fuseki:<URL>, virtuoso:<URL>) while a running server goes on serving from its own; start the server with the same --index after" },
  help: serveOptions.help,
} satisfies Record<string, OptionSpec>;

export const pathOptions = {
  data: serveOptions.data,
  help: serveOptions.help,
} satisfies Record<string, OptionSpec>;

const cert = { type: 'string', description: 'PEM file with the client certificate and its private key (WebID-TLS), e.g. data/secrets/owner.pem' } as const;
const insecure = { type: 'boolean', default: false, description: 'accept a self-signed server certificate (like curl -k)' } as const;
const accept = { type: 'string', default: TURTLE, description: 'media type to ask for' } as const;
const file = { type: 'string', description: 'file holding the body to send, or - for standard input' } as const;
const ifMatch = { type: 'string', description: 'ETag the write is based on, as get printed it (required to change an existing document)' } as const;

/** The options of each client command: only what the command takes. */
export const clientCommandOptions = {
  get: { cert, insecure, accept, help: serveOptions.help },
  put: {
    cert,
    insecure,
    file,
    'content-type': { type: 'string', default: TURTLE, description: 'media type of the body sent' },
    'if-match': ifMatch,
    'if-none-match': { type: 'string', description: 'send If-None-Match (use * to create only)' },
    accept: { ...accept, description: 'media type whose ETag If-Match quotes (the one get was run with)' },
    help: serveOptions.help,
  },
  patch: { cert, insecure, file, 'if-match': ifMatch, accept: { ...accept, description: 'media type whose ETag If-Match quotes (the one get was run with)' }, help: serveOptions.help },
  delete: { cert, insecure, 'if-match': ifMatch, accept: { ...accept, description: 'media type whose ETag If-Match quotes (the one get was run with)' }, help: serveOptions.help },
  history: { cert, insecure, help: serveOptions.help },
  restore: { cert, insecure, help: serveOptions.help },
  diff: { cert, insecure, help: serveOptions.help },
} satisfies Record<string, Record<string, OptionSpec>>;

export interface ServeConfig {
  data: string;
  port: number;
  host: string;
  base: string;
  http: boolean;
  /** Addresses whose Client-Cert header is believed (with the proxy secret); empty: none. */
  trustedProxies: string[];
  /** The proxy secret's file, when --trusted-proxy-secret-file names one (else DIR/secrets/proxy-secret). */
  trustedProxySecretFile: string | undefined;
  /** Origins (scheme://host[:port]) trusted with credentials everywhere, besides each dataspace's own. */
  corsOrigins: string[];
  bodyLimit: number;
  /** The largest uploaded file, in bytes. */
  uploadLimit: number;
  sparqlTimeoutMs: number;
  queryLanes: number;
  /** The index of every end-user dataspace without its own in system.ttl. */
  index: IndexChoice;
  extraQueryLanes: number;
  slowQueryMs: number;
  allowInternalUrls: boolean;
  watch: boolean;
  /** A read replica's primary (its end-user base URL) and the certificates it is trusted by. */
  replicaOf?: { primary: string; caFile?: string };
  githubApi: string;
  mirrorPacingMs: number;
  /** '-' (standard output), 'off', or the absolute path of a file to append to. */
  accessLog: string;
}

function positiveInteger(name: string, value: unknown): number {
  const n = wholeNumber(name, value);
  if (n === 0) throw new Error(`--${name} must be a positive whole number, not "${String(value)}"`);
  return n;
}

function wholeNumber(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not "${String(value)}"`);
  return n;
}

/** The addresses of --trusted-proxy: IP literals, and only with --http (over HTTPS the TLS connection is the certificate). */
function trustedProxies(value: unknown, http: boolean): string[] {
  const addresses = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
  if (addresses.length && !http) throw new Error('--trusted-proxy is for --http, behind a TLS-terminating proxy: over HTTPS the client certificate comes with the connection');
  for (const address of addresses) if (isIP(address) === 0) throw new Error(`--trusted-proxy takes IP addresses, not "${address}"`);
  return addresses;
}

function corsOrigins(values: unknown): string[] {
  return (Array.isArray(values) ? values : []).map((value: string) => {
    const origin = webOrigin(value);
    if (!origin) throw new Error(`--cors-origin must be an origin such as https://app.example.org (scheme, host and port only), not "${value}"`);
    return origin;
  });
}

function replicaOf(primary: unknown, ca: unknown): ServeConfig['replicaOf'] {
  if (typeof primary !== 'string') {
    if (typeof ca === 'string') throw new Error('--replica-ca is for --replica-of');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(primary.endsWith('/') ? primary : `${primary}/`);
  } catch {
    throw new Error(`--replica-of must be the primary's base URL, such as https://primary.example:4443/, not "${primary}"`);
  }
  if (url.protocol !== 'https:') throw new Error('--replica-of must be an https URL: the primary knows its replicas by the secretary\'s client certificate');
  return { primary: url.href, caFile: typeof ca === 'string' ? resolve(ca) : undefined };
}

function accessLogTarget(value: string): string {
  if (value === '') throw new Error('--access-log must be -, off or a file');
  return value === '-' || value === 'off' ? value : resolve(value);
}

/**
 * `--flag value` as `--flag=value` when the value starts with a dash but names no flag (an ETag may:
 * its digest is base64url), which parseArgs would refuse as ambiguous; a flag followed by another
 * flag keeps that refusal, the sign of a forgotten value.
 */
function joinDashedValues(specs: Record<string, OptionSpec>, args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const flag = (value: string) => value.startsWith('--') && Object.hasOwn(specs, value.slice(2).split('=')[0]!);
    if (name !== undefined && specs[name]?.type === 'string' && next?.startsWith('-') && !flag(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

export function parseCommand<T extends Record<string, OptionSpec>>(specs: T, args: string[]) {
  const options = specs as Record<string, OptionSpec & { type: 'string' | 'boolean' }>;
  const { values, positionals } = parseArgs({ args: joinDashedValues(specs, args), options, allowPositionals: true, strict: true });
  return { values: values as Record<string, string | boolean | string[] | undefined>, positionals };
}

export function serveConfig(args: string[]): ServeConfig | 'help' {
  const { values } = parseCommand(serveOptions, args);
  if (values.help) return 'help';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not "${String(values.port)}"`);
  const host = String(values.host);
  const http = Boolean(values.http);
  let base = typeof values.base === 'string' ? values.base : `${http ? 'http' : 'https'}://${host}:${port}/`;
  if (!base.endsWith('/')) base += '/';
  new URL(base); // throws a clear TypeError for a malformed --base
  return {
    data: resolve(String(values.data)),
    port,
    host,
    base,
    http,
    trustedProxies: trustedProxies(values['trusted-proxy'], http),
    trustedProxySecretFile: typeof values['trusted-proxy-secret-file'] === 'string' ? resolve(values['trusted-proxy-secret-file']) : undefined,
    corsOrigins: corsOrigins(values['cors-origin']),
    bodyLimit: positiveInteger('body-limit', values['body-limit']),
    uploadLimit: positiveInteger('upload-limit', values['upload-limit']),
    sparqlTimeoutMs: positiveInteger('sparql-timeout', values['sparql-timeout']),
    queryLanes: positiveInteger('query-lanes', values['query-lanes']),
    index: parseIndexChoice(String(values.index), '--index'),
    extraQueryLanes: wholeNumber('extra-query-lanes', values['extra-query-lanes']),
    slowQueryMs: positiveInteger('slow-query-ms', values['slow-query-ms']),
    allowInternalUrls: Boolean(values['allow-internal-urls']),
    watch: !values['no-watch'],
    replicaOf: replicaOf(values['replica-of'], values['replica-ca']),
    githubApi: String(values['github-api']),
    mirrorPacingMs: wholeNumber('mirror-pacing', values['mirror-pacing']),
    accessLog: accessLogTarget(String(values['access-log'])),
  };
}

export function usage(command: string, summary: string, specs: Record<string, OptionSpec>): string {
  const lines = [`Usage: lodestone ${command} [options]`, '', summary, '', 'Options:'];
  for (const [name, spec] of Object.entries(specs)) {
    const flag = spec.type === 'string' ? `--${name} <value>` : `--${name}`;
    const fallback = spec.default !== undefined && spec.default !== false ? ` (default: ${String(spec.default)})` : '';
    const repeatable = 'multiple' in spec && spec.multiple ? ' (repeatable)' : '';
    lines.push(`  ${flag.padEnd(28)} ${spec.description}${fallback}${repeatable}`);
  }
  return lines.join('\n');
}
