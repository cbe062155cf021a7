/**
 * The `lodestone` command: `serve` starts the server, `reindex` rebuilds the index from HEAD.
 * Every flag is declared in config.ts; `lodestone <command> --help` lists them.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommand, reindexOptions, serveConfig, serveOptions, usage } from './config.js';
import { IndexCore } from './index/index-core.js';
import { readRef } from './store/refs.js';
import { dataspaceDir, serve } from './server.js';
import { reindexRequestFile } from './watch/watcher.js';

const commands = {
  serve: 'Starts the server. With an empty data directory it creates the dataspaces first.',
  reindex: 'Rebuilds the index of every dataspace from HEAD, and asks a running server to do the same.',
};

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
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await running.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
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
  for (const id of readdirSync(root)) {
    const gitdir = join(dataspaceDir(data, id), '.git');
    const started = Date.now();
    const core = new IndexCore({ gitdir, prefix: 'graphs', base: `urn:lodestone:${id}:` });
    const report = await core.syncTo(await readRef(gitdir, 'refs/heads/main'));
    for (const bad of report.invalid) console.error(`${id}: ${bad.path}: ${bad.message}`);
    console.log(`${id}: ${report.graphsReplaced} documents, ${core.store.size} triples indexed from ${report.commit ?? 'an empty branch'} in ${Date.now() - started} ms`);
    mkdirSync(join(gitdir, 'lodestone'), { recursive: true });
    writeFileSync(reindexRequestFile(gitdir), new Date().toISOString() + '\n');
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === 'serve') return runServe(args);
  if (command === 'reindex') return runReindex(args);
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
