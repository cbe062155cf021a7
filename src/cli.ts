/**
 * The `lodestone` command: `serve` starts the server, `reindex` rebuilds the index from HEAD, and
 * `get`, `put`, `patch`, `delete`, `history`, `restore`, `diff` are HTTP clients of any server; `path`
 * names the file that holds a document.
 * Every flag is declared in config.ts; `lodestone <command> --help` lists the ones it takes.
 * The commands themselves are in cli-commands.ts, imported only when one runs, so `--version` and
 * `--help` load nothing else; the server and the index are imported only by the commands that use them.
 */
import { readFileSync } from 'node:fs';

const commands = {
  serve: 'Starts the server. With an empty data directory it creates the dataspaces first.',
  reindex: 'Rebuilds the index of every dataspace from HEAD, and asks a running server to do the same.',
  get: 'Prints a document (lodestone get <url>); the ETag goes to standard error.',
  put: 'Replaces or creates a document from --file (lodestone put <url> --file doc.ttl).',
  patch: 'Runs a SPARQL update from --file on a document (lodestone patch <url> --file update.rq --if-match <etag>).',
  delete: 'Deletes a document (lodestone delete <url> --if-match <etag>).',
  history: 'Lists the versions of a document, oldest first: time, commit id and URL (lodestone history <url>).',
  restore: 'Makes an earlier version current again, as a new commit (lodestone restore <url> <sha>).',
  path: 'Prints the file in the data directory that holds a document (lodestone path <url> --data DIR), for editing with git.',
  diff: 'Lists the triples removed (-) and added (+) between two versions (lodestone diff <url> <sha> [<sha>]); without a second one, against the current document.',
};

function help(): string {
  return ['Usage: lodestone <command> [options]', '', 'Commands:', ...Object.entries(commands).map(([c, d]) => `  ${c.padEnd(10)} ${d}`), '', 'lodestone <command> --help shows the options of a command; lodestone --version its version.'].join('\n');
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command && Object.hasOwn(commands, command)) {
    const name = command as keyof typeof commands;
    const run = await import('./cli-commands.js');
    if (name === 'serve') return run.runServe(args, commands.serve);
    if (name === 'reindex') return run.runReindex(args, commands.reindex);
    if (name === 'path') return run.runPath(args, commands.path);
    if (name === 'restore' || name === 'diff' || name === 'history') return run.runVersions(name, args, commands[name]);
    const methods = { get: 'GET', put: 'PUT', patch: 'PATCH', delete: 'DELETE' } as const;
    return run.runClient(methods[name], name, args, commands[name]);
  }
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
