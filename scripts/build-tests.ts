/**
 * Builds the tests for `npm test` and `npm run test:system`: every `.ts` of `test/` to plain
 * JavaScript in `dist-test/test/` (esbuild, file by file, types stripped, source maps beside them;
 * other files copied), next to `dist-test/src`, a link to the build of the sources in `dist/`
 * (`npm run build`), so that a test's `../src/x.js` is the very module the server's worker threads
 * load. A test process so loads its modules without tsx's loader thread answering every import:
 * 0.9 s of a core against 1.8 s for what an HTTP test imports, measured here, for each of the
 * hundred-odd test files. Types are checked by `npm run typecheck`.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist-test';

/** The files under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT);
symlinkSync(join('..', 'dist'), join(OUT, 'src'), 'dir');
const all = files('test');
await build({ entryPoints: all.filter((file) => file.endsWith('.ts')), outdir: join(OUT, 'test'), format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning' });
// what tests read beside them (the Python clients' scripts)
for (const file of all.filter((f) => !f.endsWith('.ts'))) {
  mkdirSync(dirname(join(OUT, file)), { recursive: true });
  copyFileSync(file, join(OUT, file));
}
