/**
 * The benchmark's handle on the git CLI child process (git-cli-child.ts): requests go over IPC
 * with advanced serialisation (Buffers travel as they are) and are handled one at a time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildRequest, ChildResponse } from './git-cli-child.js';
import type { DocumentFile } from './documents.js';

type Request = ChildRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export class GitCliProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor() {
    const entry = fileURLToPath(new URL('./git-cli-child.ts', import.meta.url));
    this.child = fork(entry, [], { execArgv: ['--import', import.meta.resolve('tsx')], serialization: 'advanced' });
    this.child.on('message', (response: ChildResponse) => {
      const waiter = this.pending.get(response.id);
      this.pending.delete(response.id);
      if (response.ok) waiter?.resolve(response.value);
      else waiter?.reject(new Error(response.message));
    });
    this.child.on('exit', (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`git CLI child exited with ${code}`));
      this.pending.clear();
    });
  }

  private call<T>(request: Request): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ ...request, id });
    });
  }

  /** Prepares the repository at `dir` (its git index) and makes the warm-up commits. */
  open(dir: string, warmup: DocumentFile[]): Promise<void> {
    return this.call({ op: 'open', dir, warmup });
  }

  /** Commits `updates` from `writers` callers (taking turns); resolves to the seconds it took. */
  writes(dir: string, updates: DocumentFile[], writers: number): Promise<number> {
    return this.call({ op: 'writes', dir, updates, writers });
  }

  /** Microseconds of one `git cat-file -p HEAD:<path>` per path. */
  catFile(dir: string, paths: string[]): Promise<number[]> {
    return this.call({ op: 'cat-file', dir, paths });
  }

  close(): void {
    this.child.kill();
  }
}
