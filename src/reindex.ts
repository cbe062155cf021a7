/**
 * `lodestone reindex`: rebuilds the index of every dataspace from HEAD, to check that it can be
 * built and how long it takes. The index lives in memory, so this only reads the repositories: it
 * runs beside a server and asks it, through the request file, to rebuild its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { madeFor } from './base-check.js';
import { describeHolder, holderOf } from './data-lock.js';
import { descriptionFile, type DataspaceDescription } from './dataspace.js';
import { IndexCore } from './index/index-core.js';
import { readRef } from './store/refs.js';
import { dataspaceDir, dataspacesOf } from './registry.js';
import { readDataspaces, systemConfigFile } from './system-config.js';
import { SystemFile } from './system-file.js';
import { reindexRequestFile } from './watch/watcher.js';

export async function reindex(dataDir: string): Promise<void> {
  const data = resolve(dataDir);
  const root = join(data, 'dataspaces');
  if (!existsSync(root)) throw new Error(`${data} holds no dataspaces (no ${root})`);
  // the base resolves relative IRIs in system.ttl; each repository records its own base for the index
  const base = (await madeFor(data, descriptionFile(join(dataspaceDir(data, 'end-user'), '.git')))) ?? 'https://localhost/';
  for (const { id } of dataspacesOf(await readDataspaces(new SystemFile(systemConfigFile(data), base)))) {
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
