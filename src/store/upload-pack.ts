/**
 * A dataspace's repository served to git clients over the smart HTTP protocol, read-only (issue 29:
 * replicas follow the primary with git's own protocol): `git upload-pack --stateless-rpc`, the
 * program `git http-backend` runs, in a child process, so a fetch never holds the thread that
 * answers requests. No push: receive-pack is never run. At most `concurrency` packs are made at a
 * time, the others wait their turn (a 503 in the middle of a protocol v2 exchange reads to git as a
 * broken ref listing), up to `queue` of them; each is stopped past its deadline. Git reads no user or system configuration here.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { LodestoneError } from '../errors.js';
import { gitEnvironment } from './git-cli.js';

/** The protocol versions a client may ask for (`Git-Protocol: version=2`), as git passes them. */
const PROTOCOL = /^version=[012]$/;

export interface UploadPackOptions {
  /** Packs made at once; more are refused with 503 (default 2: this is a 2-core machine's share). */
  concurrency?: number;
  /** How long one may run (default 120 s). */
  deadlineMs?: number;
  /** Requests that may wait for a turn; more are refused with 503 (default 64). */
  queue?: number;
}

export class UploadPack {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly queue: number;
  private readonly concurrency: number;
  private readonly deadlineMs: number;

  constructor(options: UploadPackOptions = {}) {
    this.concurrency = options.concurrency ?? 2;
    this.deadlineMs = options.deadlineMs ?? 120_000;
    this.queue = options.queue ?? 64;
  }

  /** Waits for a turn; 503 when too many already wait. */
  private async turn(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.queue) throw new LodestoneError('Busy', 'the repository is being fetched by as many replicas as can wait; try again shortly', { headers: { 'Retry-After': '1' } });
    await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over: running stays counted
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /**
   * The refs advertisement of `gitdir` (`info/refs?service=git-upload-pack`), with the service
   * line protocol v0/v1 clients expect first (gitprotocol-http(5)); v2 has none.
   */
  async advertise(gitdir: string, protocol: string | undefined): Promise<Buffer> {
    await this.turn();
    const output = await this.collect(this.run(gitdir, protocol, ['--advertise-refs'], undefined));
    if (protocol === 'version=2') return output;
    const line = '# service=git-upload-pack\n';
    return Buffer.concat([Buffer.from((line.length + 4).toString(16).padStart(4, '0') + line + '0000'), output]);
  }

  /** The answer to a client's wants and haves (`git-upload-pack`), streamed as git makes it. */
  async pack(gitdir: string, protocol: string | undefined, request: Readable): Promise<Readable> {
    await this.turn();
    return this.run(gitdir, protocol, [], request);
  }

  private run(gitdir: string, protocol: string | undefined, args: string[], input: Readable | undefined): Readable {
    const env = gitEnvironment();
    if (protocol !== undefined && PROTOCOL.test(protocol)) env.GIT_PROTOCOL = protocol;
    const child = spawn('git', ['upload-pack', '--stateless-rpc', ...args, gitdir], { env, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), this.deadlineMs);
    child.once('close', () => {
      clearTimeout(timer);
      this.release();
    });
    child.once('error', () => undefined); // no git: the output ends empty, and the client says why
    if (input) {
      input.pipe(child.stdin!);
      child.stdin!.on('error', () => child.kill('SIGKILL')); // git stopped reading: a bad request
      input.once('error', () => child.kill('SIGKILL'));
    }
    const output = child.stdout!;
    output.once('close', () => {
      input?.unpipe();
      if (!output.readableEnded) child.kill('SIGKILL'); // the client went away: the pack stops
    });
    return output;
  }

  private async collect(stream: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
