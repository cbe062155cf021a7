/**
 * What the `lodestone` command does once cli.ts has chosen a command: the HTTP client commands, the
 * server and the index rebuild. cli.ts imports this module only for those, so `--version` and
 * `--help` answer without loading it (nor node:https, the flags' table or the server).
 */
import { readFileSync } from 'node:fs';
import { send, errorTitle, type ClientRequest, type ClientResponse } from './client.js';
import { clientCommandOptions, parseCommand, pathOptions, reindexOptions, serveConfig, serveOptions, usage } from './config.js';
import { LINK_FORMAT, SPARQL_UPDATE, TURTLE } from './rdf/media-types.js';

/** Sends a request; a refused server certificate or an unreachable server becomes an error that says what to do. */
async function call(request: ClientRequest): Promise<ClientResponse> {
  try {
    return await send(request);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (/SELF_SIGNED|UNABLE_TO_VERIFY|CERT_/.test(code)) throw new Error(`${request.url}: the server's certificate is not trusted (${code}); for a server with a self-signed certificate, add --insecure (like curl -k)`);
    if (code === 'ECONNREFUSED') throw new Error(`${request.url}: nothing answers there (is the server started? npm start)`);
    throw error;
  }
}

/** Prints a refusal with its title and, where the cause is likely on this side, what to change; sets the exit code. */
function refused(response: ClientResponse, cert: string | undefined): void {
  process.exitCode = 1;
  const hint = response.status === 403 && !cert ? ' (this request had no --cert, so it was anonymous: pass --cert with your certificate, e.g. --cert data/secrets/owner.pem)' : '';
  console.error(`${response.status}: ${errorTitle(response.body)}${hint}`);
}

/** An ETag as HTTP wants it: a value typed without its double quotes gets them. */
function quotedTag(value: string): string {
  return value === '*' || value.startsWith('"') || value.startsWith('W/"') ? value : `"${value}"`;
}

export async function runVersions(name: 'restore' | 'diff' | 'history', args: string[], description: string): Promise<void> {
  const { values, positionals } = parseCommand(clientCommandOptions[name], args);
  if (values.help) {
    console.log(usage(`${name} <url>${name === 'history' ? '' : ' <sha>'}${name === 'diff' ? ' [<sha>]' : ''}`, description, clientCommandOptions[name]));
    return;
  }
  const [url, sha, to] = positionals;
  if (!url || (!sha && name !== 'history')) throw new Error(name === 'history' ? 'lodestone history needs a document URL' : `lodestone ${name} needs a document URL and a commit id (full or abbreviated, as git log --oneline prints it)`);
  const cert = values.cert as string | undefined;
  const common = { cert, insecure: Boolean(values.insecure) };
  let response;
  if (name === 'history') {
    response = await call({ ...common, method: 'GET', url: `${url}?timemap`, headers: { Accept: LINK_FORMAT } });
  } else if (name === 'diff') {
    const query = `?diff=${encodeURIComponent(sha!)}${to ? `&to=${encodeURIComponent(to)}` : ''}`;
    response = await call({ ...common, method: 'GET', url: url + query });
  } else {
    // the restore is a write like any other: it quotes the ETag of the current document
    const current = await call({ ...common, method: 'HEAD', url });
    const headers: Record<string, string> = current.headers.etag ? { 'If-Match': String(current.headers.etag) } : { 'If-None-Match': '*' };
    response = await call({ ...common, method: 'POST', url: `${url}?restore=${encodeURIComponent(sha!)}`, headers });
  }
  if (response.status >= 400) return refused(response, cert);
  if (name === 'history') {
    // RFC 7089 link-format: one line per memento, oldest first
    for (const match of response.body.toString('utf8').matchAll(/<([^>]*[?&]version=([0-9a-f]{40}))>; rel="[^"]*memento"; datetime="([^"]+)"/g)) {
      console.log(`${new Date(match[3]!).toISOString()}  ${match[2]}  ${match[1]}`);
    }
  } else if (name === 'diff') process.stdout.write(response.body);
  else console.error(`${response.status} restored ${sha}${response.headers.etag ? `; ETag: ${String(response.headers.etag)}` : ''}`);
}

export async function runClient(method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', name: 'get' | 'put' | 'patch' | 'delete', args: string[], description: string): Promise<void> {
  const options = clientCommandOptions[name];
  const { values, positionals } = parseCommand(options, args);
  if (values.help) {
    console.log(usage(`${name} <url>`, description, options));
    return;
  }
  const url = positionals[0];
  if (!url) throw new Error(`lodestone ${name} needs a document URL`);
  const flags = values as Record<string, string | boolean | undefined>;
  const headers: Record<string, string> = { Accept: String(flags.accept ?? TURTLE) };
  if (typeof flags['if-match'] === 'string') headers['If-Match'] = quotedTag(flags['if-match']);
  if (typeof flags['if-none-match'] === 'string') headers['If-None-Match'] = quotedTag(flags['if-none-match']);
  let body: Buffer | undefined;
  if (method === 'PUT' || method === 'PATCH') {
    if (typeof flags.file !== 'string') throw new Error(`lodestone ${name} needs --file (or --file - for standard input)`);
    body = flags.file === '-' ? readFileSync(0) : readFileSync(flags.file);
    headers['Content-Type'] = method === 'PATCH' ? SPARQL_UPDATE : String(flags['content-type']);
  }
  const cert = flags.cert as string | undefined;
  const response = await call({ method, url, cert, insecure: Boolean(flags.insecure), headers, body });
  const etag = response.headers.etag;
  if (response.status >= 400) return refused(response, cert);
  if (etag) console.error(`ETag: ${String(etag)}`);
  if (method === 'GET') process.stdout.write(response.body);
  else console.error(`${response.status}${response.headers.location ? ` ${String(response.headers.location)}` : ''}`);
}

export async function runServe(args: string[], description: string): Promise<void> {
  const config = serveConfig(args);
  if (config === 'help') {
    console.log(usage('serve', description, serveOptions));
    return;
  }
  // the signals are heard from the start: one that comes while the server starts stops it once started
  let stopping = false;
  const running = import('./server.js').then(({ serve }) => serve(config));
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping (finishing the writes under way)`);
    await (await running.catch(() => undefined))?.close();
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await running;
}

export async function runPath(args: string[], description: string): Promise<void> {
  const { values, positionals } = parseCommand(pathOptions, args);
  if (values.help) console.log(usage('path <url>', description, pathOptions));
  else if (!positionals[0]) throw new Error('lodestone path needs a document URL (lodestone path https://localhost:4443/a/b/ --data DIR)');
  else console.log((await import('./path-command.js')).documentFilePath(String(values.data ?? './data'), positionals[0]));
}

export async function runReindex(args: string[], description: string): Promise<void> {
  const { values } = parseCommand(reindexOptions, args);
  if (values.help) console.log(usage('reindex', description, reindexOptions));
  else await (await import('./reindex.js')).reindex(String(values.data ?? './data'), typeof values.index === 'string' ? values.index : undefined);
}
