/**
 * The `lodestone` command: `serve` starts the server, `reindex` rebuilds the index from HEAD, and
 * `get`, `put`, `patch`, `delete`, `history`, `restore`, `diff` are HTTP clients of any server.
 * Every flag is declared in config.ts; `lodestone <command> --help` lists the ones it takes.
 * The server and the index are imported only by the commands that use them, so a client command
 * starts without loading them.
 */
import { readFileSync } from 'node:fs';
import { send, errorTitle, type ClientRequest, type ClientResponse } from './client.js';
import { clientCommandOptions, parseCommand, pathOptions, reindexOptions, serveConfig, serveOptions, usage } from './config.js';
import { LINK_FORMAT, SPARQL_UPDATE, TURTLE } from './rdf/media-types.js';

const commands = {
  serve: 'Starts the server. With an empty data directory it creates the dataspaces first.',
  reindex: 'Rebuilds the index of every dataspace from HEAD, and asks a running server to do the same.',
  path: 'Prints the file in the data directory that holds a document (lodestone path <url> --data DIR), for editing with git.',
  get: 'Prints a document (lodestone get <url>); the ETag goes to standard error.',
  put: 'Replaces or creates a document from --file (lodestone put <url> --file doc.ttl).',
  patch: 'Runs a SPARQL update from --file on a document (lodestone patch <url> --file update.rq --if-match <etag>).',
  delete: 'Deletes a document (lodestone delete <url> --if-match <etag>).',
  history: 'Lists the versions of a document, oldest first: time, commit id and URL (lodestone history <url>).',
  restore: 'Makes an earlier version current again, as a new commit (lodestone restore <url> <sha>).',
  diff: 'Lists the triples removed (-) and added (+) between two versions (lodestone diff <url> <sha> [<sha>]); without a second one, against the current document.',
};

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

async function runVersions(name: 'restore' | 'diff' | 'history', args: string[]): Promise<void> {
  const { values, positionals } = parseCommand(clientCommandOptions[name], args);
  if (values.help) {
    console.log(usage(`${name} <url>${name === 'history' ? '' : ' <sha>'}${name === 'diff' ? ' [<sha>]' : ''}`, commands[name], clientCommandOptions[name]));
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

async function runClient(method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', name: 'get' | 'put' | 'patch' | 'delete', args: string[]): Promise<void> {
  const options = clientCommandOptions[name];
  const { values, positionals } = parseCommand(options, args);
  if (values.help) {
    console.log(usage(`${name} <url>`, commands[name], options));
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

function help(): string {
  return ['Usage: lodestone <command> [options]', '', 'Commands:', ...Object.entries(commands).map(([c, d]) => `  ${c.padEnd(10)} ${d}`), '', 'lodestone <command> --help shows the options of a command; lodestone --version its version.'].join('\n');
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function runServe(args: string[]): Promise<void> {
  const config = serveConfig(args);
  if (config === 'help') {
    console.log(usage('serve', commands.serve, serveOptions));
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

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === 'serve') return runServe(args);
  if (command === 'reindex') {
    const { values } = parseCommand(reindexOptions, args);
    if (values.help) console.log(usage('reindex', commands.reindex, reindexOptions));
    else await (await import('./reindex.js')).reindex(String(values.data ?? './data'), typeof values.index === 'string' ? values.index : undefined);
    return;
  }
  if (command === 'path') {
    const { values, positionals } = parseCommand(pathOptions, args);
    if (values.help) console.log(usage('path <url>', commands.path, pathOptions));
    else if (!positionals[0]) throw new Error('lodestone path needs a document URL (lodestone path https://localhost:4443/a/b/ --data DIR)');
    else console.log((await import('./path-command.js')).documentFilePath(String(values.data ?? './data'), positionals[0]));
    return;
  }
  if (command === 'get') return runClient('GET', command, args);
  if (command === 'put') return runClient('PUT', command, args);
  if (command === 'patch') return runClient('PATCH', command, args);
  if (command === 'delete') return runClient('DELETE', command, args);
  if (command === 'restore' || command === 'diff' || command === 'history') return runVersions(command, args);
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(`lodestone ${version()}`);
    return;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(help());
    return;
  }
  if (command === undefined) {
    console.error(help());
    process.exitCode = 2; // a command is needed: say so to a script too
    return;
  }
  throw new Error(`unknown command "${command}"\n\n${help()}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`lodestone: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
