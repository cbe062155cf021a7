/**
 * Many blobs of a repository read in one `git cat-file --batch`, in the order given: what reading a
 * thousand versions of a document costs when git is installed (DESIGN.md: git's own reader is
 * several times faster, and far faster on packs git deltified, which ours reads through
 * isomorphic-git). Undefined when git cannot be started: the caller reads the objects itself.
 */
import { spawn } from 'node:child_process';
import { ObjectStore } from './objects.js';

export interface BlobBatch {
  /** The blob `id`: ids must be asked for in the order given (a skipped one is dropped). */
  read(id: string): Promise<Buffer>;
  /** Ends git's process (at once: what was not read is not wanted). */
  close(): void;
}

/** Blobs read ahead of the reader at most (a thousand versions of a 100 KB document would be 100 MB at once). */
const AHEAD = 16;

export function catFileBatch(gitdir: string, ids: readonly string[]): Promise<BlobBatch | undefined> {
  return new Promise((resolve) => {
    const child = spawn('git', ['--git-dir', gitdir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', () => resolve(undefined));
    child.stdin.on('error', () => undefined); // closed early: the rest is not wanted
    child.on('spawn', () => {
      let buffered: Buffer = Buffer.alloc(0);
      const done: Array<{ id: string; bytes?: Buffer; error?: Error }> = [];
      let waiting: (() => void) | undefined;
      let ended = false;
      child.stdout.on('data', (chunk: Buffer) => {
        buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
        for (;;) {
          const eol = buffered.indexOf(10);
          if (eol < 0) break;
          const [id, type, size] = buffered.subarray(0, eol).toString('latin1').split(' ') as [string, string, string | undefined];
          if (type !== 'blob' || size === undefined) {
            done.push({ id, error: new Error(`${id} is ${type === 'missing' ? 'missing' : `a ${type}`}`) });
            buffered = buffered.subarray(eol + 1);
            continue;
          }
          const end = eol + 1 + Number(size);
          if (buffered.length < end + 1) break;
          done.push({ id, bytes: Buffer.from(buffered.subarray(eol + 1, end)) });
          buffered = buffered.subarray(end + 1);
        }
        if (done.length - next > AHEAD) child.stdout.pause(); // read no further ahead than the reader
        waiting?.();
      });
      child.stdout.on('close', () => {
        ended = true;
        waiting?.();
      });
      child.stdin.end(ids.join('\n') + '\n');
      let next = 0;
      resolve({
        async read(id) {
          for (;;) {
            while (next < done.length && done[next]!.id !== id) next++;
            const found = done[next];
            if (found) {
              done[next] = { id: '' }; // let the bytes go once read
              if (child.stdout.isPaused() && done.length - next <= AHEAD / 2) child.stdout.resume();
              if (found.error) throw found.error;
              return found.bytes!;
            }
            if (ended) throw new Error(`git cat-file gave no ${id}`);
            await new Promise<void>((wake) => (waiting = wake));
          }
        },
        close() {
          child.kill();
        },
      });
    });
  });
}

/**
 * Runs `use` with a reader of the blobs `ids` (to be read in that order): git's own when it is
 * installed, else an ObjectStore opened for this call (read only: packs written since are found by
 * its rescan, and nothing is kept between calls). For workers that read a repository themselves.
 */
export async function withBlobReader<T>(gitdir: string, ids: readonly string[], use: (read: (id: string) => Promise<Buffer>) => Promise<T>): Promise<T> {
  const batch = await catFileBatch(gitdir, ids);
  if (batch) {
    try {
      return await use((id) => batch.read(id));
    } finally {
      batch.close();
    }
  }
  const objects = new ObjectStore(gitdir);
  try {
    return await use((id) => objects.readTyped(id, 'blob'));
  } finally {
    await objects.close();
  }
}
