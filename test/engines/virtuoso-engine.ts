/**
 * Starts a real Virtuoso (virtuoso-t from Debian's virtuoso-opensource-7, or LODESTONE_VIRTUOSO)
 * for a test: loopback only, free ports, its own virtuoso.ini and database in a fresh directory
 * under the OS temp dir, a random dba password. A first start makes a database (~5 s); it is kept
 * as a template under the temp dir, and later starts copy it (~1 s). A missing Virtuoso throws:
 * CI must fail, not skip (.ci/engines/virtuoso.sh installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestFetch } from '../../src/index/engines/digest-fetch.js';
import { freePort } from '../http-helpers.js';

export const VIRTUOSO_BINARY = process.env.LODESTONE_VIRTUOSO ?? '/usr/bin/virtuoso-t';

export interface VirtuosoServer {
  /** The engine URL for VirtuosoEngine: http://dba:<password>@127.0.0.1:<port>/ */
  endpoint: string;
  dir: string;
  /** kill -9, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same database (after kill: Virtuoso replays its transaction log), its ini's [SPARQL] section changed by `sparql`. */
  restart(sparql?: Record<string, string>): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

function ini(dir: string, sqlPort: number, httpPort: number): string {
  return `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
MaxClientConnections = 20
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ${dir}
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
ThreadsPerQuery = 2
MaxQueryMem = 256M
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
MaxClientConnections = 20
ServerThreads = 20
KeepAliveTimeout = 10
[SPARQL]
ResultSetMaxRows = 1000000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
`;
}

function installed(): void {
  try {
    accessSync(VIRTUOSO_BINARY, constants.X_OK);
  } catch {
    throw new Error(`Virtuoso is not installed: ${VIRTUOSO_BINARY} is not an executable (run .ci/engines/virtuoso.sh, or set LODESTONE_VIRTUOSO to virtuoso-t)`);
  }
}

async function answers(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`virtuoso-t exited with ${child.exitCode} (see ${dir}/virtuoso.log)`);
    try {
      const response = await fetch(`${url}sparql?query=ASK%7B%7D`);
      await response.text();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Virtuoso did not answer within 60 s (see ${dir}/virtuoso.log)`);
}

function launch(dir: string): ChildProcess {
  return spawn(VIRTUOSO_BINARY, ['+foreground', '+configfile', join(dir, 'virtuoso.ini')], { cwd: dir, stdio: 'ignore' });
}

async function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await done;
}

/** A database with nothing but Virtuoso's own, made once per machine and copied for each start. */
async function template(): Promise<string> {
  const path = join(tmpdir(), 'lodestone-virtuoso-template-7', 'virtuoso.db');
  if (existsSync(path)) return path;
  const dir = mkdtempSync(join(tmpdir(), 'lodestone-virtuoso-make-'));
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  writeFileSync(join(dir, 'virtuoso.ini'), ini(dir, sqlPort, httpPort));
  const child = launch(dir);
  try {
    await answers(`http://127.0.0.1:${httpPort}/`, child, dir);
  } finally {
    await exited(child, 'SIGTERM'); // a clean shutdown checkpoints: the .db alone is the database
  }
  mkdirSync(join(tmpdir(), 'lodestone-virtuoso-template-7'), { recursive: true });
  renameSync(join(dir, 'virtuoso.db'), `${path}.${process.pid}`);
  renameSync(`${path}.${process.pid}`, path); // atomic: a concurrent maker's copy is as good
  rmSync(dir, { recursive: true, force: true });
  return path;
}

export async function startVirtuoso(): Promise<VirtuosoServer> {
  installed();
  const db = await template();
  const dir = mkdtempSync(join(tmpdir(), 'lodestone-virtuoso-'));
  copyFileSync(db, join(dir, 'virtuoso.db'));
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  writeFileSync(join(dir, 'virtuoso.ini'), ini(dir, sqlPort, httpPort));
  const url = `http://127.0.0.1:${httpPort}/`;
  let child = launch(dir);
  const password = randomBytes(12).toString('hex');
  try {
    await answers(url, child, dir);
    const response = await digestFetch({ username: 'dba', password: 'dba' })(new URL(`${url}sparql-auth`), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: `SELECT (bif:exec("USER_SET_PASSWORD ('dba', '${password}')") AS ?r) {}` }).toString(),
    });
    if (!response.ok) throw new Error(`could not set the dba password: ${response.status} ${await response.text()}`);
    await response.text();
  } catch (error) {
    await exited(child, 'SIGKILL'); // no Virtuoso left behind by a start that failed
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const reap = (): void => void child.kill('SIGKILL'); // a test process that ends early takes its Virtuoso along
  process.once('exit', reap);
  return {
    endpoint: `http://dba:${password}@127.0.0.1:${httpPort}/`,
    dir,
    kill: () => exited(child, 'SIGKILL'),
    restart: async (sparql = {}) => {
      await exited(child, 'SIGKILL');
      rmSync(join(dir, 'virtuoso.lck'), { force: true });
      let text = ini(dir, sqlPort, httpPort);
      for (const [key, value] of Object.entries(sparql)) text = text.replace(new RegExp(`^${key} = .*$`, 'm'), `${key} = ${value}`);
      writeFileSync(join(dir, 'virtuoso.ini'), text);
      child = launch(dir);
      await answers(url, child, dir);
    },
    stop: async () => {
      process.off('exit', reap);
      await exited(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
