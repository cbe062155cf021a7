/**
 * An Oxigraph server (`oxigraph serve`, from the `oxigraph` package on PyPI, which .ci/run
 * installs) started by a test on loopback, on a free port, in memory or on a folder of its own;
 * stopped (or killed, for crash tests) by the test. A missing `oxigraph` fails, it does not skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../http-helpers.js';

export interface RunningEngine {
  url: string;
  /** Ends the process and waits for it. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
}

const binary = process.env.LODESTONE_OXIGRAPH ?? 'oxigraph';


/** Polls `url` until it answers (any status), for at most `ms`. */
export async function answering(url: string, child: ChildProcess, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${url}: the engine exited (${child.exitCode}) before it answered`);
    if (await fetch(url).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

/** Sends `signal`, and SIGKILL 3 s later to a process still there (Oxigraph finishes a running query before it exits). */
export function stopper(child: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      child.kill(signal);
    });
}

/** Starts `oxigraph serve` (in memory unless `location` is given). */
export async function startOxigraph(location?: string): Promise<RunningEngine> {
  if (spawnSync(binary, ['--version']).error) throw new Error(`the Oxigraph server is not installed (no "${binary}"): pip install oxigraph, or set LODESTONE_OXIGRAPH`);
  const port = await freePort();
  const args = ['serve', '--bind', `127.0.0.1:${port}`, ...(location ? ['--location', location] : [])];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}/`;
  await answering(url, child);
  return { url, stop: stopper(child, 'SIGTERM'), kill: stopper(child, 'SIGKILL') };
}
