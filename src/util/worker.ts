/**
 * Worker threads started the same way from compiled JavaScript and from the TypeScript sources.
 */
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker. Run from source (under tsx) a worker does not inherit the TypeScript loader,
 * so it starts from a two-line bootstrap that registers tsx and then imports the `.ts` entry.
 */
export function startWorker(entry: URL, workerData?: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData });
  const source = entry.href.replace(/\.js$/, '.ts');
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { eval: true, workerData });
}

