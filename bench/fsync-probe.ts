/**
 * The disk under the benchmark: how long a durable small write takes here (the floor under any
 * fsynced commit).
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

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
