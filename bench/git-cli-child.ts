/**
 * Child process that runs the git CLI baselines. Spawning git from the benchmark's own process
 * would make every fork copy its large heap (hundreds of MB of documents, Oxigraph memory) and
 * inflate the baseline; from this small process a spawn costs what it costs a git user.
 */
import type { DocumentFile } from './documents.js';
import { git } from './repos.js';
import { GitCliWriter, runWrites } from './writers.js';

export type ChildRequest =
  | { id: number; op: 'open'; dir: string; warmup: DocumentFile[] }
  | { id: number; op: 'writes'; dir: string; updates: DocumentFile[]; writers: number }
  | { id: number; op: 'cat-file'; dir: string; paths: string[] };

export type ChildResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

const writers = new Map<string, GitCliWriter>();

async function handle(request: ChildRequest): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const writer = await GitCliWriter.open(request.dir);
      await runWrites(writer, request.warmup, 1);
      writers.set(request.dir, writer);
      return undefined;
    }
    case 'writes': {
      const writer = writers.get(request.dir);
      if (!writer) throw new Error(`${request.dir} is not open`);
      return runWrites(writer, request.updates, request.writers);
    }
    case 'cat-file': {
      const samples: number[] = [];
      for (const path of request.paths) {
        const start = performance.now();
        await git(request.dir, ['cat-file', '-p', `HEAD:${path}`]);
        samples.push((performance.now() - start) * 1000);
      }
      return samples;
    }
  }
}

let chain: Promise<void> = Promise.resolve();
process.on('message', (request: ChildRequest) => {
  chain = chain.then(async () => {
    let response: ChildResponse;
    try {
      response = { id: request.id, ok: true, value: await handle(request) };
    } catch (error) {
      response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    process.send!(response);
  });
});
