/**
 * `lodestone reindex`: rebuilds the index of every dataspace from HEAD, to check that it can be
 * built and how long it takes. The index lives in memory, so this only reads the repositories: it
 * runs beside a server and asks it, through the request file, to rebuild its own.
 * `lodestone reindex --index <kind>:<URL>` instead loads every end-user dataspace into that SPARQL
 * server, marker included, while a running server goes on serving from its own index: the server
 * started next with the same `--index` finds the marker and syncs only what changed since.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { madeFor } from './base-check.js';
import { describeHolder, holderOf } from './data-lock.js';
import { descriptionFile, type DataspaceDescription } from './dataspace.js';
import { parseIndexChoice, shownEndpoint, type IndexChoice } from './index/engine.js';
import { engineFor } from './index/engines.js';
import { IndexCore } from './index/index-core.js';
import { RemoteIndex } from './index/remote-index.js';
import { readRef } from './store/refs.js';
import { dataspaceDir, dataspacesOf } from './registry.js';
import { readDataspaces, systemConfigFile } from './system-config.js';
import { SystemFile } from './system-file.js';
import { reindexRequestFile } from './watch/watcher.js';

export async function reindex(dataDir: string, index?: string): Promise<void> {
  const data = resolve(dataDir);
  const root = join(data, 'dataspaces');
  if (!existsSync(root)) throw new Error(`${data} holds no dataspaces (no ${root})`);
  // the base resolves relative IRIs in system.ttl; each repository records its own base for the index
  const base = (await madeFor(data, descriptionFile(join(dataspaceDir(data, 'end-user'), '.git')))) ?? 'https://localhost/';
  const pairs = await readDataspaces(new SystemFile(systemConfigFile(data), base));
  if (index !== undefined) return loadInto(data, parseIndexChoice(index, '--index'), pairs.map((pair) => pair.endUser.id));
  for (const { id } of dataspacesOf(pairs)) {
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

/** Loads each of `ids` from HEAD into the engine `choice` names, marker and all. */
async function loadInto(data: string, choice: IndexChoice, ids: readonly string[]): Promise<void> {
  if (choice.kind === 'embedded') throw new Error('--index embedded: the embedded index lives in the server; run reindex without --index');
  for (const id of ids) {
    const gitdir = join(dataspaceDir(data, id), '.git');
    if (!existsSync(descriptionFile(gitdir))) {
      console.log(`${id}: not served yet (start the server once first)`);
      continue;
    }
    const described = JSON.parse(readFileSync(descriptionFile(gitdir), 'utf8')) as DataspaceDescription;
    const started = Date.now();
    const remote = new RemoteIndex({ engine: engineFor(choice.kind, choice.endpoint!), id, gitdir, prefix: described.prefix, base: described.base, log: (line) => console.log(line) });
    try {
      const head = await readRef(gitdir, `refs/heads/${described.branch}`);
      await remote.rebuild(head);
      console.log(`${id}: ${await remote.size()} triples loaded into ${choice.kind} at ${shownEndpoint(choice.endpoint)} from ${head ?? 'an empty branch'} in ${Date.now() - started} ms`);
    } finally {
      await remote.close();
    }
  }
  console.log(`start the server with --index ${choice.kind}:${shownEndpoint(choice.endpoint)} (or lds:index in system.ttl): it syncs from the marker to HEAD`);
}
