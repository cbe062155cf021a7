/**
 * Runs wrk (Debian's `wrk`) against a URL and reads its figures: requests per second and the
 * latency percentiles of `--latency`. wrk drives load from its own native process, so the 2-core
 * machine is not shared with a Node load generator.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU time (user + system) per request in µs, when the server's pid was given. */
  cpu: number;
}

/** CPU time (user + system) of process `pid` so far, in µs (Linux /proc; clock ticks of 10 ms). */
export function cpuTime(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

function toMs(value: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(value);
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

export async function hasWrk(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ENOENT' && /wrk/.test(String((error as { stdout?: unknown }).stdout ?? ''));
  }
}

/**
 * The CPU to pin a latency load to (the machine's last), or undefined when there is one CPU or no
 * `taskset`. wrk times a request from its send to its reading of the response, so on a machine
 * whose CPUs the server shares with wrk, each time wrk itself is descheduled adds to the latency it
 * reports; pinned, it keeps to one CPU, as a load generator on its own machine would.
 */
export async function pinnedCpu(): Promise<number | undefined> {
  if (availableParallelism() < 2) return undefined;
  try {
    await run('taskset', ['-c', '0', 'true']);
    return availableParallelism() - 1;
  } catch {
    return undefined;
  }
}

/**
 * One wrk run, on CPU `cpu` only when given. With `pid` (the server's), the server's CPU time per
 * request is measured too: on a shared machine it is steadier than throughput, which other
 * processes' load moves around.
 */
export async function wrk(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string>; pid?: number; threads?: number; script?: string; scriptArgs?: string[]; cpu?: number },
): Promise<WrkResult> {
  const cpuBefore = cpuTime(options.pid);
  const args = [`-t${options.threads ?? 1}`, `-c${options.connections}`, `-d${options.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.script) args.push('-s', options.script);
  const command = [...args, url, ...(options.scriptArgs ? ['--', ...options.scriptArgs] : [])];
  const pinned = options.cpu === undefined ? command : ['-c', String(options.cpu), 'wrk', ...command];
  const { stdout } = await run(options.cpu === undefined ? 'wrk' : 'taskset', pinned, { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(stdout)?.[1] ?? '');
  const p99 = toMs(/\s99%\s+(\S+)/.exec(stdout)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`wrk saw ${non2xx} error responses from ${url}`);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  return { rps, p50, p99, cpu: (cpuTime(options.pid) - cpuBefore) / requests };
}

/** Runs each load once (warm-up), then in alternating rounds, and returns their medians: this machine is shared, and one long run of each drifts apart. */
export async function alternate<T extends readonly (() => Promise<WrkResult>)[]>(rounds: number, loads: readonly [...T]): Promise<{ [K in keyof T]: WrkResult }> {
  for (const load of loads) await load();
  const results = loads.map((): WrkResult[] => []);
  for (let i = 0; i < rounds; i++) for (const [k, load] of loads.entries()) results[k]!.push(await load());
  return results.map((runs) => {
    const pick = (key: keyof WrkResult) => runs.map((r) => r[key]).sort((x, y) => x - y)[Math.floor(runs.length / 2)]!;
    return { rps: pick('rps'), p50: pick('p50'), p99: pick('p99'), cpu: pick('cpu') };
  }) as { [K in keyof T]: WrkResult };
}
