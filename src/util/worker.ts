/**
 * Worker threads started the same way from compiled JavaScript and from the TypeScript sources.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
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


/**
 * Lowers the scheduling priority of the calling thread (Linux: a thread is a task with its own
 * nice value, named by /proc/thread-self). Background work in workers (index syncs, composing
 * writes) then yields the CPU to the main thread that answers requests. Elsewhere, a no-op.
 */
export function lowerThreadPriority(niceness: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // not Linux, or not allowed: run at the normal priority
  }
}
