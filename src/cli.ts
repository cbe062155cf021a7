/**
 * The `lodestone` command: `serve` starts the server, `reindex` rebuilds the index from HEAD, and
 * `get`, `put`, `patch`, `delete` are HTTP clients of any server.
 * Every flag is declared in config.ts; `lodestone <command> --help` lists them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { madeFor } from './base-check.js';
import { send, errorTitle } from './client.js';
import { clientOptions, parseCommand, reindexOptions, serveConfig, serveOptions, usage } from './config.js';
import { describeHolder, holderOf } from './data-lock.js';
import { descriptionFile, type DataspaceDescription } from './dataspace.js';
import { IndexCore } from './index/index-core.js';
import { readRef } from './store/refs.js';
import { dataspaceDir, dataspacesOf } from './registry.js';
import { serve } from './server.js';
import { readDataspaces } from './system-config.js';
import { reindexRequestFile } from './watch/watcher.js';

const commands = {
  serve: 'Starts the server. With an empty data directory it creates the dataspaces first.',
  reindex: 'Rebuilds the index of every dataspace from HEAD, and asks a running server to do the same.',
  get: 'Prints a document (lodestone get <url>); the ETag goes to standard error.',
  put: 'Replaces or creates a document from --file (lodestone put <url> --file doc.ttl).',
  patch: 'Runs a SPARQL update from --file on a document (lodestone patch <url> --file update.rq --if-match <etag>).',
  delete: 'Deletes a document (lodestone delete <url> --if-match <etag>).',
  restore: 'Makes an earlier version current again, as a new commit (lodestone restore <url> <sha>).',
  diff: 'Lists the triples removed (-) and added (+) between two versions (lodestone diff <url> <sha> [<sha>]); without a second one, against the current document.',
};

async function runVersions(name: 'restore' | 'diff', args: string[]): Promise<void> {
  const { values, positionals } = parseCommand(clientOptions, args);
  if (values.help) {
    console.log(usage(`${name} <url> <sha>${name === 'diff' ? ' [<sha>]' : ''}`, commands[name], clientOptions));
    return;
  }
  const [url, sha, to] = positionals;
  if (!url || !sha) throw new Error(`lodestone ${name} needs a document URL and a commit id`);
  const common = { cert: values.cert as string | undefined, insecure: Boolean(values.insecure) };
  let response;
  if (name === 'diff') {
    const query = `?diff=${encodeURIComponent(sha)}${to ? `&to=${encodeURIComponent(to)}` : ''}`;
    response = await send({ ...common, method: 'GET', url: url + query });
  } else {
    // the restore is a write like any other: it quotes the ETag of the current document
    const current = await send({ ...common, method: 'HEAD', url });
    const headers: Record<string, string> = current.headers.etag ? { 'If-Match': String(current.headers.etag) } : { 'If-None-Match': '*' };
    response = await send({ ...common, method: 'POST', url: `${url}?restore=${encodeURIComponent(sha)}`, headers });
  }
  if (response.status >= 400) {
    process.exitCode = 1;
    console.error(`${response.status}: ${errorTitle(response.body)}`);
    return;
  }
  if (name === 'diff') process.stdout.write(response.body);
  else console.error(`${response.status} restored ${sha}${response.headers.etag ? `; ETag: ${String(response.headers.etag)}` : ''}`);
}

async function runClient(method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', name: keyof typeof commands, args: string[]): Promise<void> {
  const { values, positionals } = parseCommand(clientOptions, args);
  if (values.help) {
    console.log(usage(`${name} <url>`, commands[name], clientOptions));
    return;
  }
  const url = positionals[0];
  if (!url) throw new Error(`lodestone ${name} needs a document URL`);
  const headers: Record<string, string> = { Accept: String(values.accept) };
  if (typeof values['if-match'] === 'string') headers['If-Match'] = values['if-match'];
  if (typeof values['if-none-match'] === 'string') headers['If-None-Match'] = values['if-none-match'];
  let body: Buffer | undefined;
  if (method === 'PUT' || method === 'PATCH') {
    if (typeof values.file !== 'string') throw new Error(`lodestone ${name} needs --file (or --file - for standard input)`);
    body = values.file === '-' ? readFileSync(0) : readFileSync(values.file);
    headers['Content-Type'] = method === 'PATCH' ? 'application/sparql-update' : String(values['content-type']);
  }
  const response = await send({ method, url, cert: values.cert as string | undefined, insecure: Boolean(values.insecure), headers, body });
  const etag = response.headers.etag;
  if (response.status >= 400) {
    process.exitCode = 1;
    console.error(`${response.status}: ${errorTitle(response.body)}`);
    return;
  }
  if (etag) console.error(`ETag: ${String(etag)}`);
  if (method === 'GET') process.stdout.write(response.body);
  else console.error(`${response.status}${response.headers.location ? ` ${String(response.headers.location)}` : ''}`);
}

function help(): string {
  return ['Usage: lodestone <command> [options]', '', 'Commands:', ...Object.entries(commands).map(([c, d]) => `  ${c.padEnd(10)} ${d}`), '', 'lodestone <command> --help shows the options of a command.'].join('\n');
}

async function runServe(args: string[]): Promise<void> {
  const config = serveConfig(args);
  if (config === 'help') {
    console.log(usage('serve', commands.serve, serveOptions));
    return;
  }
  const running = await serve(config);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping (finishing the writes under way)`);
    await running.close();
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function runReindex(args: string[]): Promise<void> {
  const { values } = parseCommand(reindexOptions, args);
  if (values.help) {
    console.log(usage('reindex', commands.reindex, reindexOptions));
    return;
  }
  const data = resolve(String(values.data ?? './data'));
  const root = join(data, 'dataspaces');
  if (!existsSync(root)) throw new Error(`${data} holds no dataspaces (no ${root})`);
  // the base resolves relative IRIs in system.ttl; each repository records its own base for the index
  const base = (await madeFor(data, descriptionFile(join(dataspaceDir(data, 'end-user'), '.git')))) ?? 'https://localhost/';
  for (const { id } of dataspacesOf(await readDataspaces(data, base))) {
    const gitdir = join(dataspaceDir(data, id), '.git');
    if (!existsSync(gitdir)) {
      console.log(`${id}: no repository yet (the server makes ${dataspaceDir(data, id)} on its next start)`);
      continue;
    }
    const started = Date.now();
    const described = existsSync(descriptionFile(gitdir)) ? (JSON.parse(readFileSync(descriptionFile(gitdir), 'utf8')) as DataspaceDescription) : undefined;
    const core = new IndexCore({ gitdir, prefix: described?.prefix ?? 'graphs', base: described?.base ?? `urn:lodestone:${id}:` });
    const report = await core.syncTo(await readRef(gitdir, `refs/heads/${described?.branch ?? 'main'}`));
    for (const bad of report.invalid) console.error(`${id}: ${bad.path}: ${bad.message}`);
    console.log(`${id}: ${report.graphsReplaced} documents, ${core.store.size} triples indexed from ${report.commit ?? 'an empty branch'} in ${Date.now() - started} ms`);
    mkdirSync(join(gitdir, 'lodestone'), { recursive: true });
    writeFileSync(reindexRequestFile(gitdir), new Date().toISOString() + '\n');
  }
  // Reindexing only reads the repositories (the index lives in memory), so it runs beside a server
  // and asks it, through the request file, to rebuild its own.
  const holder = holderOf(data);
  console.log(holder ? `asked the server on ${data} (${describeHolder(holder)}) to rebuild its index too (a server started with --no-watch does not hear it)` : `no server runs on ${data}: the next one to start indexes HEAD`);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === 'serve') return runServe(args);
  if (command === 'reindex') return runReindex(args);
  if (command === 'get') return runClient('GET', command, args);
  if (command === 'put') return runClient('PUT', command, args);
  if (command === 'patch') return runClient('PATCH', command, args);
  if (command === 'delete') return runClient('DELETE', command, args);
  if (command === 'restore' || command === 'diff') return runVersions(command, args);
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(help());
    return;
  }
  throw new Error(`unknown command "${command}"\n\n${help()}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`lodestone: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
