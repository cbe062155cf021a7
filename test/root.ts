/**
 * The repository's root: the nearest folder above this module that holds a package.json. A test
 * runs from `test/` (under tsx) or from `dist-test/test/` (built by scripts/build-tests.ts, as
 * `npm test` runs it), so `..` is not always the root.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function rootAbove(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(at) === at) throw new Error(`no package.json above ${dir}`);
  }
}

export const ROOT = rootAbove(import.meta.dirname);
