/**
 * Fails (exit 1) when the relative imports of `src/` form a cycle, type-only imports included: a
 * module graph with a cycle has no order to read or test it in. Prints each cycle found as
 * `a.ts → b.ts → a.ts`. Run by `npm run lint`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sources(root);
const known = new Set(files);
const edges = new Map<string, string[]>();
for (const file of files) {
  const targets: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolve(dirname(file), (match[1] ?? match[2] ?? match[3])!).replace(/\.js$/, '.ts');
    if (known.has(target)) targets.push(target);
  }
  edges.set(file, targets);
}

// Tarjan's strongly connected components: every component of more than one file (or a file importing itself) holds a cycle.
let counter = 0;
const order = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const components: string[][] = [];
function visit(file: string): void {
  order.set(file, counter);
  low.set(file, counter++);
  stack.push(file);
  onStack.add(file);
  for (const next of edges.get(file)!) {
    if (!order.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file)!, low.get(next)!));
    } else if (onStack.has(next)) {
      low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
  }
  if (low.get(file) === order.get(file)) {
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)!.includes(file)) components.push(component);
  }
}
for (const file of files) if (!order.has(file)) visit(file);

/** One cycle through `start` inside its component, by breadth-first search back to it. */
function cycleThrough(start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const next of edges.get(file)!) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start];
}

const name = (file: string) => relative(process.cwd(), file);
for (const component of components) {
  const members = new Set(component);
  const first = [...members].sort()[0]!;
  console.error(`import cycle among ${component.length} files: ${cycleThrough(first, members).map(name).join(' → ')}`);
}
if (components.length) {
  console.error(`${components.length} import cycle${components.length > 1 ? 's' : ''} in ${name(root)}: move what both sides need into a module both import`);
  process.exit(1);
}
console.log(`no import cycles among ${files.length} files in ${name(root)}`);
