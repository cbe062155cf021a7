#!/usr/bin/env node
// The `lodestone` executable. It runs the JavaScript that `npm install` compiled into dist/ (npm run
// build), which starts in a fraction of a second. When dist/ is missing or older than a source file
// (the sources were edited since), it runs the TypeScript sources through tsx instead, so that it
// never runs stale code; that start is slower.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/cli.js`;
const stamp = `${root}dist/.tsbuildinfo`; // rewritten by every build that changed something

/** The newest modification time of the files under a folder, in milliseconds. */
function newest(dir) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    time = Math.max(time, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return time;
}

if (existsSync(built) && existsSync(stamp) && statSync(stamp).mtimeMs >= newest(`${root}src`)) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
