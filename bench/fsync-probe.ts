/**
 * The disk under the benchmark: how long a durable small write takes here (the floor under any
 * fsynced commit), and a counter of fsync/fdatasync calls made through fs.promises FileHandles,
 * installed by wrapping FileHandle.prototype (nothing in src/ changes) to count them per commit.
 */
import { promises as fsp } from 'node:fs';
import { devNull } from 'node:os';
import { join } from 'node:path';

export interface FsyncCounter {
  datasync: number;
  sync: number;
}

export const fsyncCalls: FsyncCounter = { datasync: 0, sync: 0 };

let installed = false;

/** Counts every FileHandle.datasync() and .sync() from now on into `fsyncCalls`. */
export async function installFsyncCounter(): Promise<void> {
  if (installed) return;
  installed = true;
  const handle = await fsp.open(devNull, 'r');
  const proto = Object.getPrototypeOf(handle) as Record<'datasync' | 'sync', (this: unknown) => Promise<void>>;
  await handle.close();
  for (const name of ['datasync', 'sync'] as const) {
    const original = proto[name];
    proto[name] = function (this: unknown) {
      fsyncCalls[name]++;
      return original.call(this);
    };
  }
}

/** Microseconds of: create a file, write `bytes`, fdatasync, close, rename; then fsync the directory. */
export async function durableWriteLatency(dir: string, samples: number, bytes = 10 * 1024): Promise<{ file: number[]; dir: number[] }> {
  await fsp.mkdir(dir, { recursive: true });
  const data = Buffer.alloc(bytes, 0x61);
  const out = { file: [] as number[], dir: [] as number[] };
  for (let i = 0; i < samples; i++) {
    let start = performance.now();
    const handle = await fsp.open(join(dir, `tmp-${i}`), 'wx');
    await handle.writeFile(data);
    await handle.datasync();
    await handle.close();
    await fsp.rename(join(dir, `tmp-${i}`), join(dir, `file-${i}`));
    out.file.push((performance.now() - start) * 1000);
    start = performance.now();
    const directory = await fsp.open(dir, 'r');
    await directory.sync();
    await directory.close();
    out.dir.push((performance.now() - start) * 1000);
  }
  await fsp.rm(dir, { recursive: true, force: true });
  return out;
}
