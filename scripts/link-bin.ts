/**
 * Links the `lodestone` command into node_modules/.bin, as npm links a dependency's command, so that
 * `npx lodestone` finds it there and runs it at once. Run by `npm install` (package.json "prepare").
 * package.json declares no "bin" on purpose: npm 11's npx (libnpmexec `hasPkgBin`) takes a command
 * named by the project's own "bin" as a package to install into its npx cache, and reads the whole
 * node_modules tree with Arborist first (1.2–1.5 s a call, seconds more with a stale hidden lockfile);
 * a command found in node_modules/.bin is run without any of that (0.4 s, most of it npm's start).
 */
import { chmodSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const project = process.cwd(); // npm runs "prepare" in the project's folder
const bin = join(project, 'node_modules', '.bin');
const link = join(bin, 'lodestone');
mkdirSync(bin, { recursive: true });
try {
  lstatSync(link);
  rmSync(link);
} catch {
  // no link yet
}
symlinkSync(join('..', '..', 'bin', 'lodestone.js'), link);
chmodSync(join(project, 'bin', 'lodestone.js'), 0o755);
