/**
 * What an index on a SPARQL server keeps beside the repository (`<gitdir>/lodestone/`), each file
 * written whole, synced and renamed: the marker, for an engine that keeps none (remote-index.ts),
 * and the graphs the engine refused, which are never changed by lines, only replaced whole.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

export class IndexFiles {
  private readonly dir: string;
  private refused: Set<string> | undefined;

  constructor(gitdir: string, private readonly kind: string) {
    this.dir = join(gitdir, 'lodestone');
  }

  readMarker(): Promise<string | undefined> {
    return fsp.readFile(this.file('marker'), 'utf8').catch(() => undefined);
  }

  writeMarker(text: string): Promise<void> {
    return this.write('marker', text + '\n');
  }

  /** The graphs the engine refused (left empty) since the last full load. */
  async refusedGraphs(): Promise<ReadonlySet<string>> {
    this.refused ??= new Set((await fsp.readFile(this.file('refused'), 'utf8').catch(() => '')).split('\n').filter(Boolean));
    return this.refused;
  }

  /** Records a graph the engine refused: before it is emptied, so its next version is sent whole. */
  async refuse(graph: string): Promise<void> {
    const refused = (await this.refusedGraphs()) as Set<string>;
    if (refused.has(graph)) return;
    refused.add(graph);
    await this.write('refused', [...refused].join('\n') + '\n');
  }

  /** Forgets the refusals: every graph was just loaded whole. */
  async loadedWhole(): Promise<void> {
    if ((await this.refusedGraphs()).size === 0) return;
    this.refused = new Set();
    await this.write('refused', '');
  }

  private file(what: 'marker' | 'refused'): string {
    return join(this.dir, `index-${what}-${this.kind}`);
  }

  private async write(what: 'marker' | 'refused', text: string): Promise<void> {
    const file = this.file(what);
    await fsp.mkdir(this.dir, { recursive: true });
    const handle = await fsp.open(file + '.tmp', 'w');
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fsp.rename(file + '.tmp', file);
  }
}
