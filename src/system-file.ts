/**
 * The one reader of the system configuration file `DIR/system.ttl` (SPEC §9.1): the dataspaces it
 * declares (registry.ts), their versioning, logins and trusted origins (system-config.ts) and their
 * settings (settings.ts) are all read from here. The file is parsed as it is now, and read again
 * only when it changed (its modification time or size); a write replaces it atomically (a new file
 * fsynced and renamed over the old, the folder fsynced). Built once by the composition root.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import type { Quad } from '@rdfjs/types';
import { TURTLE } from './rdf/media-types.js';
import { parseRdf, tripleLine } from './rdf/ntriples.js';
import { splitTurtle } from './rdf/turtle-statements.js';

/** A piece of the file's text: a statement with its triples (blank nodes labelled as in the file), a directive, or trivia. */
export interface Piece {
  kind: 'trivia' | 'directive' | 'statement';
  text: string;
  triples: Quad[];
}

/** The file as read: its triples, its pieces (for edits that keep every other byte) and its prefixes. */
export interface SystemText {
  /** Every triple of the file; relative IRIs resolved against the server's base. */
  graph: Quad[];
  pieces: Piece[];
  prefixes: Record<string, string>;
}

/** The pieces of the file with their triples; when the pieces do not add up to the file's graph, the whole file is one piece. */
function load(text: string, baseIRI: string): SystemText {
  const whole = parseRdf(text, { format: TURTLE, baseIRI, keepBlankNodeLabels: true });
  const prefixes: Record<string, string> = {};
  const pieces: Piece[] = [];
  let directives = '';
  for (const piece of splitTurtle(text)) {
    if (piece.kind === 'directive') {
      directives += piece.text + '\n';
      const declared = /^(?:@prefix|PREFIX)\s+([^\s:]*):\s*<([^>]*)>/i.exec(piece.text);
      if (declared) prefixes[declared[1]!] = new URL(declared[2]!, baseIRI).href;
    }
    let triples: Quad[] = [];
    if (piece.kind === 'statement') {
      try {
        triples = parseRdf(`${directives}${piece.text}\n`, { format: TURTLE, baseIRI, keepBlankNodeLabels: true });
      } catch {
        return { pieces: [{ kind: 'statement', text, triples: whole }], graph: whole, prefixes };
      }
    }
    pieces.push({ ...piece, triples });
  }
  const graph = pieces.flatMap((p) => p.triples);
  const ground = (quads: Quad[]) => new Set(quads.filter((q) => q.subject.termType !== 'BlankNode' && q.object.termType !== 'BlankNode').map(tripleLine));
  const [a, b] = [ground(whole), ground(graph)];
  if (graph.length !== whole.length || a.size !== b.size || [...a].some((line) => !b.has(line))) {
    return { pieces: [{ kind: 'statement', text, triples: whole }], graph: whole, prefixes };
  }
  return { pieces, graph, prefixes };
}

export class SystemFile {
  private loaded: (SystemText & { mtimeMs: number; size: number }) | undefined;

  constructor(
    /** `DIR/system.ttl`. */
    readonly file: string,
    /** Relative IRIs in the file resolve against the server's base. */
    readonly baseIRI: string,
  ) {}

  exists(): boolean {
    return existsSync(this.file);
  }

  /** The file as it is now, parsed again only when it changed since the last read; throws when it is missing or is not Turtle. */
  async read(): Promise<SystemText> {
    const stats = await fsp.stat(this.file);
    const loaded = this.loaded;
    if (loaded && loaded.mtimeMs === stats.mtimeMs && loaded.size === stats.size) return loaded;
    const text = await fsp.readFile(this.file, 'utf8');
    this.loaded = { mtimeMs: stats.mtimeMs, size: stats.size, ...load(text, this.baseIRI) };
    return this.loaded;
  }

  /** Makes the file with `text` when there is none (a new data directory). */
  async createIfMissing(text: () => string): Promise<void> {
    if (this.exists()) return;
    await fsp.mkdir(dirname(this.file), { recursive: true });
    await fsp.writeFile(this.file, text());
  }

  /** Writes `text` atomically: a new file beside it, fsynced, renamed over it, the folder fsynced. */
  async replace(text: string): Promise<void> {
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    const mode = (await fsp.stat(this.file).catch(() => undefined))?.mode ?? 0o644;
    const handle = await fsp.open(tmp, 'w', mode & 0o777);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, this.file);
    const folder = await fsp.open(dirname(this.file), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }
}
