/**
 * One server per data directory: `DIR/lodestone.lock` names the process serving it (pid, start
 * time, base, host, port). The lock appears whole or not at all: it is written aside, then
 * hard-linked into place, which fails when one is there. A lock whose process is gone is stale and
 * is taken over; starters racing on one stale lock first create a marker named after its content
 * (`wx`), and only the one that made it may remove that lock, so exactly one of them gets the next.
 */
import { createHash, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  /** ISO time the holder took the lock. */
  started: string;
  base?: string;
  host?: string;
  port?: number;
}

export function lockFile(data: string): string {
  return join(data, 'lodestone.lock');
}

/** The holder named by the lock's text, or undefined when it is not a lock (empty, damaged). */
function parseHolder(text: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(text) as Partial<LockHolder>;
    return Number.isInteger(holder.pid) && typeof holder.started === 'string' ? (holder as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote the lock still runs: signal 0 tells (EPERM: it runs, as another user). */
function running(holder: LockHolder): boolean {
  // our own pid: this process, unless the lock predates it (a restarted container reuses pids)
  if (holder.pid === process.pid) return Date.parse(holder.started) >= performance.timeOrigin;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function created(make: () => void): boolean {
  try {
    make();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** What the message of a refused start says about the holder. */
export function describeHolder(holder: LockHolder): string {
  const serving = holder.base ? `, serving ${holder.base}` : '';
  const address = holder.port !== undefined ? ` (on ${holder.host ?? 'any address'} port ${holder.port})` : '';
  return `process ${holder.pid}${serving}${address} since ${holder.started}`;
}

/** The running server that holds the data directory, if one does. */
export function holderOf(data: string): LockHolder | undefined {
  const text = readText(lockFile(data));
  const holder = text === undefined ? undefined : parseHolder(text);
  return holder && running(holder) ? holder : undefined;
}

export interface DataLock {
  /** Removes the lock, when it is still this one. */
  release(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lock of `data` for this process, or throws a message naming the process that holds it. */
export async function lockDataDir(data: string, about: Omit<LockHolder, 'pid' | 'started'>, log: (line: string) => void): Promise<DataLock> {
  mkdirSync(data, { recursive: true });
  const file = lockFile(data);
  const text = JSON.stringify({ pid: process.pid, started: new Date().toISOString(), ...about }) + '\n';
  const aside = `${file}.${randomUUID()}`;
  writeFileSync(aside, text);
  try {
    for (let waits = 0; ; ) {
      if (created(() => linkSync(aside, file))) break;
      const current = readText(file);
      if (current === undefined) continue; // removed meanwhile: try again
      const holder = parseHolder(current);
      if (holder && running(holder)) {
        throw new Error(
          `${data} is in use by another Lodestone server: ${describeHolder(holder)}. Stop it first (kill ${holder.pid}), or start this one with another --data directory. ` +
            `If process ${holder.pid} is not a Lodestone server (its id was reused), remove ${file} and start again.`,
        );
      }
      // stale: whoever creates the marker of this very lock may remove it; the others wait and look again
      const marker = `${file}.takeover-${createHash('sha256').update(current).digest('hex').slice(0, 16)}`;
      if (created(() => writeFileSync(marker, `${process.pid}\n`, { flag: 'wx' }))) {
        try {
          if (readText(file) === current) {
            unlinkSync(file);
            log(holder ? `taking over the lock of process ${holder.pid}, which is no longer running (${file})` : `replacing ${file}, which names no process`);
          }
        } finally {
          unlinkSync(marker);
        }
      } else if (++waits > 100) {
        throw new Error(`${file} is stale, and another start has been taking it over for 5 s (${marker}); if no other server is starting, remove both files and start again`);
      } else {
        await sleep(50);
      }
    }
  } finally {
    unlinkSync(aside);
  }
  return {
    release() {
      if (readText(file) === text) unlinkSync(file);
    },
  };
}
