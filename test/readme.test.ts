/**
 * The README's examples run as written. Every `sh` block of README.md, then of docs/reference.md (where
 * the README's reference moved), is run with bash (`set -e`,
 * `pipefail`) in an empty folder, against a fresh server started there as `npm start` starts it
 * (its defaults: ./data, https://localhost:4443/). curl is told to fail on an HTTP error status
 * (`fail-with-body` in a .curlrc of its own), so an example that gets a 4xx fails here. The
 * project's own commands (`npm …`, the longer test runs) are not run: they are what runs this.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { removeTempDirs, tempDir } from './helpers.js';
import { ROOT } from './root.js';

after(removeTempDirs);

/** The files whose examples run, in this order: the getting-started page, then the reference. */
const MARKDOWN = ['README.md', join('docs', 'reference.md')];

/** The `sh` blocks of a Markdown text, each as its lines, indentation removed. */
function shellBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  let open: { indent: number; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^( *)```(\w*)\s*$/.exec(line);
    if (fence && !open && fence[2] === 'sh') open = { indent: fence[1]!.length, lines: [] };
    else if (fence && open) {
      blocks.push(open.lines);
      open = undefined;
    } else if (open) open.lines.push(line.slice(open.indent));
  }
  return blocks;
}

/** The commands of a block (continued lines joined), without the project's own commands. */
function examples(block: string[]): { run: string[]; skipped: string[] } {
  const commands = block.join('\n').replace(/\\\n/g, '').split('\n').filter((line) => line.trim() !== '');
  // and the installs and starts of the SPARQL servers an index can live on, which .ci/engines/ and test/engines/ run
  const own = (command: string) => /^(npm |[A-Z_]+=\S* (npm|node) |python3 -m pip install |curl -fsSLO https:\/\/repo1\.maven\.org\/|oxigraph serve |java |sudo |apt-get |virtuoso-t )/.test(command);
  return { run: commands.filter((c) => !own(c)), skipped: commands.filter(own) };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

describe('README examples', () => {
  it('run as written against a fresh server', async (t) => {
    if (!(await portFree(4443))) {
      // the examples name port 4443: a server of someone's own may be using it
      assert.notEqual(process.env.CI, 'true', 'port 4443 is in use, and the README examples need it');
      t.skip('port 4443 is in use (the README examples name it)');
      return;
    }
    const dir = tempDir('readme');
    // the folder sees the project's packages (an example imports rdflib) and its command, as npm install links it (scripts/link-bin.ts)
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (entry !== '.bin') symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
    }
    symlinkSync(join(ROOT, 'bin', 'lodestone.js'), join(dir, 'node_modules', '.bin', 'lodestone'));
    const curlHome = tempDir('readme-curl');
    writeFileSync(join(curlHome, '.curlrc'), 'fail-with-body\n');
    const env = { ...process.env, CURL_HOME: curlHome };

    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const [command, ...args] = start.replace('bin/', join(ROOT, 'bin') + '/').split(' ');
    assert.equal(command, 'node');
    const server = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const collect = (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening on https://localhost:4443/')) resolve();
      };
      server.stdout.on('data', collect);
      server.stderr.on('data', collect);
      server.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
    });
    try {
      const blocks = MARKDOWN.flatMap((file) => shellBlocks(readFileSync(join(ROOT, file), 'utf8')).map((lines) => ({ file, lines })));
      let ran = 0;
      for (const { file, lines: block } of blocks) {
        const { run, skipped } = examples(block);
        if (skipped.length > 0) t.diagnostic(`not run (the project's own commands): ${skipped.join(' | ')}`);
        if (run.length === 0) continue;
        const script = ['set -euo pipefail', ...run].join('\n');
        try {
          execFileSync('bash', ['-c', script], { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' });
        } catch (error) {
          const e = error as { stdout?: string; stderr?: string; status?: number };
          assert.fail(`a block of ${file} failed (exit ${e.status}):\n${run.join('\n')}\n--- stdout\n${e.stdout}\n--- stderr\n${e.stderr}`);
        }
        ran += run.length;
      }
      assert.ok(ran >= 15, `only ${ran} README commands ran`);
      for (const file of MARKDOWN) assert.ok(blocks.some((block) => block.file === file && examples(block.lines).run.length > 0), `${file} has examples that ran`);

      // what the examples did is in git
      const log = execFileSync('git', ['log', '--format=%s'], { cwd: join(dir, 'data', 'dataspaces', 'end-user'), encoding: 'utf8' });
      for (const subject of ['PUT https://localhost:4443/first/', 'PUT https://localhost:4443/hello/', 'PATCH https://localhost:4443/hello/', 'PUT https://localhost:4443/notes/', 'PATCH https://localhost:4443/notes/']) {
        assert.ok(log.includes(subject), `git log has "${subject}":\n${log}`);
      }
    } finally {
      server.kill('SIGINT');
      await new Promise((resolve) => server.on('exit', resolve));
    }
  });
});
