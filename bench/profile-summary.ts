/**
 * Self time per file and per function of each `.cpuprofile` in a folder (one per thread of a
 * process run with `node --cpu-prof --cpu-prof-dir=DIR`; BENCH_SERVER_NODE_ARGS passes those flags
 * to the benchmark's `lodestone serve`): `npx tsx bench/profile-summary.ts DIR [top]`.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

const [dir, top = '25'] = process.argv.slice(2);
if (!dir) throw new Error('usage: npx tsx bench/profile-summary.ts DIR [top]');
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frame = nodes.get(id)!.callFrame;
    const url = (frame.url || '(native)').replace(/.*\/(node_modules|dist|src)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber}`;
    total += delta;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byFile.set(url, (byFile.get(url) ?? 0) + delta);
  });
  const idle = [...byFunction].filter(([name]) => name.startsWith('(idle)')).reduce((sum, [, t]) => sum + t, 0);
  console.log(`== ${file}: ${ms(total)} sampled, ${ms(total - idle)} busy`);
  const list = (entries: Map<string, number>) => [...entries].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(top));
  for (const [name, t] of list(byFile)) console.log(`  file ${ms(t)} ${name}`);
  for (const [name, t] of list(byFunction)) console.log(`  function ${ms(t)} ${name}`);
}
