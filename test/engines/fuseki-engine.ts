/**
 * Starts Apache Jena Fuseki (jena-fuseki-server, TDB2) for a test: on loopback, on a free port, with
 * a fresh FUSEKI_BASE under the OS temp dir, and with the union default graph Lodestone's engine
 * needs (`--set tdb:unionDefaultGraph=true`) and SERVICE disabled. The jar is $LODESTONE_FUSEKI_JAR, else where
 * .ci/engines/fuseki.sh installs it; a missing jar or `java` is an error, never a skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../http-helpers.js';

/** Where .ci/engines/fuseki.sh puts the jar, then where this machine's set-up put it. */
const JAR_CANDIDATES = ['/opt/lodestone-engines/fuseki/jena-fuseki-server-5.6.0.jar', '/tmp/engines/fuseki/jena-fuseki-server-5.6.0.jar'];

export function fusekiJar(): string {
  const given = process.env.LODESTONE_FUSEKI_JAR;
  if (given) {
    if (!existsSync(given)) throw new Error(`LODESTONE_FUSEKI_JAR names ${given}, which does not exist: run .ci/engines/fuseki.sh`);
    return given;
  }
  const found = JAR_CANDIDATES.find((path) => existsSync(path));
  if (!found) throw new Error(`Fuseki is not installed (no jar at ${JAR_CANDIDATES.join(' or ')}): run .ci/engines/fuseki.sh or set LODESTONE_FUSEKI_JAR`);
  return found;
}


export class FusekiProcess {
  /** The server's root URL, as `serve --index fuseki:<url>` takes it. */
  readonly url: string;
  private child: ChildProcess | undefined;
  private output = '';
  /** Every line Fuseki logged since it was started (its request log names each query and update). */
  readonly logged: string[] = [];
  private partial = '';

  private constructor(readonly dir: string, readonly port: number, private readonly jar: string, private readonly union: boolean, private readonly fullJit: boolean) {
    this.url = `http://127.0.0.1:${port}/`;
  }

  /**
   * Starts a fresh Fuseki; resolves once it answers /$/ping. `unionDefaultGraph: false` starts it as
   * Lodestone must not find it. `fullJit` (the bench's) lets the JVM compile hot code fully; without
   * it (a test's few hundred requests) only its first-tier compiler runs, which halves the CPU a
   * start and a test's requests take.
   */
  static async start(options: { unionDefaultGraph?: boolean; fullJit?: boolean } = {}): Promise<FusekiProcess> {
    const jar = fusekiJar();
    const dir = mkdtempSync(join(tmpdir(), 'lodestone-fuseki-'));
    const fuseki = new FusekiProcess(dir, await freePort(), jar, options.unionDefaultGraph ?? true, options.fullJit ?? false);
    try {
      await fuseki.launch();
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return fuseki;
  }

  private async launch(): Promise<void> {
    this.output = '';
    // As the README starts it: the union default graph, SERVICE off (Lodestone refuses it first; this is the
    // second wall), and a JVM that exits when out of memory rather than lingering unresponsive. A small heap
    // (other engines share this machine); serial GC starts fastest and uses the fewest threads.
    const union = this.union ? ['--set', 'tdb:unionDefaultGraph=true'] : [];
    const jit = this.fullJit ? [] : ['-XX:TieredStopAtLevel=1'];
    const args = ['-Xmx512m', '-XX:+UseSerialGC', ...jit, '-XX:+ExitOnOutOfMemoryError', '-jar', this.jar, '--localhost', `--port=${this.port}`, ...union, '--set', 'arq:httpServiceAllowed=false'];
    const child = spawn('java', args, { cwd: this.dir, env: { ...process.env, FUSEKI_BASE: join(this.dir, 'run') }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-4000);
      const lines = (this.partial + chunk.toString()).split('\n');
      this.partial = lines.pop()!;
      this.logged.push(...lines);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const exited = new Promise<never>((_resolve, reject) => {
      child.once('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code === 'ENOENT' ? 'Fuseki needs java (Java 17), which is not on PATH: run .ci/engines/fuseki.sh' : `java did not start: ${error.message}`)));
      child.once('exit', (code, signal) => reject(new Error(`Fuseki exited (${signal ?? code}) before it answered:\n${this.output}`)));
    });
    const deadline = Date.now() + 60_000;
    const ping = async (): Promise<void> => {
      while (Date.now() < deadline) {
        const ok = await fetch(`${this.url}$/ping`).then((response) => response.ok, () => false);
        if (ok) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Fuseki did not answer within 60 s:\n${this.output}`);
    };
    await Promise.race([ping(), exited]);
    exited.catch(() => undefined);
  }

  /** Kills the engine at once (SIGKILL: no shutdown hook runs), as a crash would. */
  async kill(): Promise<void> {
    await this.stopChild('SIGKILL');
  }

  /** Starts the engine again on the same port and data directory. */
  async restart(): Promise<void> {
    await this.launch();
  }

  /** Stops the engine and removes its data directory. */
  async stop(): Promise<void> {
    await this.stopChild('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async stopChild(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    // A JVM out of memory may not run its SIGTERM handler: give it 10 s, then SIGKILL.
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}
