/**
 * Dataspace settings (SPEC §4.7 `settings`): the description of a dataspace in the system
 * configuration `DIR/system.ttl`, read from the file as it is now (system-file.ts, its one reader: a
 * file edited by hand is read again when it changes), and changed by one edit at a time, each
 * checked and then written atomically. The file stays the one people wrote:
 * only the statements an edit changes are written anew, in Turtle with the file's own prefixes;
 * comments and every other statement keep their bytes (rdf/turtle-statements.ts).
 *
 * A dataspace's description is the triples about its base URL and about the resources they lead
 * to (its versioning repository, its OpenID providers), stopping at other dataspaces. What an edit
 * may not do: remove the dataspace, its type, its `dct:identifier` (the folder its documents live
 * in) or its `lapp:adminApplication`; describe anything the dataspace does not lead to; declare
 * another dataspace. Packages are imported with `<base> ldh:import <package>`.
 */
import { randomBytes } from 'node:crypto';
import type { Quad } from '@rdfjs/types';
import { DataFactory, Writer } from 'n3';
import { TURTLE } from './rdf/media-types.js';
import { LodestoneError } from './errors.js';
import { ns, RDF_TYPE } from './rdf/namespaces.js';
import { tripleLine } from './rdf/ntriples.js';
import type { DataspacePair } from './registry.js';
import type { SystemFile } from './system-file.js';

const { namedNode, literal, quad } = DataFactory;
const IMPORT = ns.ldh + 'import';
const APPLICATION_TYPES = [ns.lapp + 'EndUserApplication', ns.lapp + 'AdminApplication'];
/** What an edit must leave as it is: it names where the dataspace's documents are, and its admin dataspace. */
const FIXED = [ns.dct + 'identifier', ns.lapp + 'adminApplication'];

/** The subjects of `graph` that `base` leads to (itself included), not entering other dataspaces. */
function describedSubjects(graph: readonly Quad[], base: string): Set<string> {
  const applications = new Set(graph.filter((q) => q.predicate.value === RDF_TYPE && APPLICATION_TYPES.includes(q.object.value)).map((q) => q.subject.value));
  const subjects = new Set(graph.map((q) => q.subject.value));
  const reached = new Set([base]);
  const queue = [base];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const q of graph) {
      if (q.subject.value !== next || q.object.termType === 'Literal') continue;
      const object = q.object.value;
      if (reached.has(object) || applications.has(object) || !subjects.has(object)) continue;
      reached.add(object);
      queue.push(object);
    }
  }
  return reached;
}

/** The triples of `graph` that describe `base`. */
export function descriptionOf(graph: readonly Quad[], base: string): Quad[] {
  const subjects = describedSubjects(graph, base);
  return graph.filter((q) => subjects.has(q.subject.value));
}

/** The packages `description` imports (`<base> ldh:import <package>`). */
export function importsOf(description: readonly Quad[], base: string): string[] {
  return description.filter((q) => q.subject.value === base && q.predicate.value === IMPORT && q.object.termType === 'NamedNode').map((q) => q.object.value);
}

/** Throws a ConstraintViolation unless `after` is an admissible edit of the description `before` of `base`. */
export function checkEdit(base: string, before: readonly Quad[], after: readonly Quad[]): void {
  const refuse = (message: string) => {
    throw new LodestoneError('ConstraintViolation', message);
  };
  if (!after.some((q) => q.subject.value === base)) refuse(`the update removes the dataspace <${base}> from the configuration; a dataspace is removed by editing system.ttl and restarting`);
  const types = (graph: readonly Quad[]) => graph.filter((q) => q.subject.value === base && q.predicate.value === RDF_TYPE && APPLICATION_TYPES.includes(q.object.value)).map((q) => q.object.value);
  for (const type of types(before)) if (!types(after).includes(type)) refuse(`the update removes the type <${type}> of the dataspace <${base}>`);
  for (const predicate of FIXED) {
    const values = (graph: readonly Quad[]) => graph.filter((q) => q.subject.value === base && q.predicate.value === predicate).map(tripleLine).sort().join('\n');
    if (values(before) !== values(after)) refuse(`the update changes <${predicate}> of the dataspace <${base}>, which says where its documents live; change it by editing system.ttl and restarting`);
  }
  const other = after.find((q) => q.predicate.value === RDF_TYPE && APPLICATION_TYPES.includes(q.object.value) && q.subject.value !== base);
  if (other) refuse(`the update declares <${other.subject.value}> a dataspace; declare dataspaces by editing system.ttl and restarting`);
  const described = describedSubjects(after, base);
  const stray = after.find((q) => !described.has(q.subject.value));
  if (stray) refuse(`the update says something of ${stray.subject.termType === 'BlankNode' ? 'a blank node' : `<${stray.subject.value}>`}, which the settings of <${base}> do not lead to`);
  const badImport = after.find((q) => q.subject.value === base && q.predicate.value === IMPORT && (q.object.termType !== 'NamedNode' || !/^https?:\/\//.test(q.object.value)));
  if (badImport) refuse(`ldh:import names a package by its http or https URL, not ${badImport.object.termType === 'Literal' ? 'a literal' : 'a blank node'}`);
}

export class SystemSettings {
  private editing: Promise<unknown> = Promise.resolve();
  private readonly lastImports = new Map<string, string[]>();
  private lastFailure: string | undefined;

  constructor(
    /** `DIR/system.ttl`, read as it is now. */
    private readonly system: SystemFile,
    private readonly pairs: readonly DataspacePair[],
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** `DIR/system.ttl`. */
  get file(): string {
    return this.system.file;
  }

  /** The declaration of a dataspace the file does not declare (a file that declares none serves the default pair). */
  private declaration(base: string): Quad[] {
    for (const { endUser, admin } of this.pairs) {
      if (endUser.base === base) return [quad(namedNode(base), namedNode(RDF_TYPE), namedNode(ns.lapp + 'EndUserApplication')), quad(namedNode(base), namedNode(ns.dct + 'identifier'), literal(endUser.id)), quad(namedNode(base), namedNode(ns.lapp + 'adminApplication'), namedNode(admin.base))];
      if (admin.base === base) return [quad(namedNode(base), namedNode(RDF_TYPE), namedNode(ns.lapp + 'AdminApplication')), quad(namedNode(base), namedNode(ns.dct + 'identifier'), literal(admin.id))];
    }
    return [];
  }

  /** The description of the dataspace at `base`, as the file has it now. */
  async description(base: string): Promise<Quad[]> {
    const { graph } = await this.system.read();
    const described = descriptionOf(graph, base);
    return described.length ? described : this.declaration(base);
  }

  /**
   * The packages the dataspace at `base` imports. Asked on every write (the namespace ontology
   * depends on it), so a file that cannot be read just now (a hand edit half saved) gives the
   * imports last read, with a log line, rather than refusing the write.
   */
  async imports(base: string): Promise<string[]> {
    try {
      const imports = importsOf(await this.description(base), base);
      this.lastImports.set(base, imports);
      this.lastFailure = undefined;
      return imports;
    } catch (error) {
      const known = this.lastImports.get(base) ?? [];
      const line = `${this.file} cannot be read (${(error as Error).message}); the packages of ${base} stay ${known.length ? known.map((p) => `<${p}>`).join(', ') : 'none'}`;
      if (line !== this.lastFailure) this.log(line); // once, not on every write
      this.lastFailure = line;
      return known;
    }
  }

  /**
   * Changes the description of `base`: `change` gets the current description and gives the new
   * one (it may refuse by throwing); the edit is checked (checkEdit), `apply` runs with both (what
   * must happen before the file says so: packages fetched), then the file is written. Edits run
   * one at a time.
   */
  update(base: string, change: (before: Quad[]) => Promise<Quad[]>, apply: (before: Quad[], after: Quad[]) => Promise<void> = async () => undefined): Promise<{ before: Quad[]; after: Quad[] }> {
    const run = async () => {
      const before = await this.description(base);
      const after = await change(before);
      checkEdit(base, before, after);
      await apply(before, after);
      await this.write(base, after);
      return { before, after };
    };
    const result = this.editing.then(run, run);
    this.editing = result.catch(() => undefined);
    return result;
  }

  /** Writes the description `after` of `base` into the file, rewriting only the statements that change. */
  private async write(base: string, after: readonly Quad[]): Promise<void> {
    const loaded = await this.system.read();
    const old = new Set(descriptionOf(loaded.graph, base).map(tripleLine));
    const kept = new Set(after.map(tripleLine));
    const removed = new Set([...old].filter((line) => !kept.has(line)));
    const present = new Set(loaded.graph.map(tripleLine));
    const added = after.filter((q) => !present.has(tripleLine(q)));
    // a file that declares no dataspace (the default pair) gets the pair declared with the first edit
    for (const pair of this.pairs) {
      if (pair.endUser.base !== base) continue;
      if (!loaded.graph.some((q) => q.subject.value === pair.admin.base && q.predicate.value === RDF_TYPE)) added.push(...this.declaration(pair.admin.base).filter((q) => !present.has(tripleLine(q))));
    }
    if (removed.size === 0 && added.length === 0) return;
    const subjects = new Set(after.map((q) => q.subject.value));
    let anchor = -1;
    loaded.pieces.forEach((piece, i) => {
      if (piece.triples.some((q) => subjects.has(q.subject.value) || old.has(tripleLine(q)))) anchor = i;
    });
    const texts = loaded.pieces.map((piece) => {
      if (!piece.triples.some((q) => removed.has(tripleLine(q)))) return piece.text;
      const left = piece.triples.filter((q) => !removed.has(tripleLine(q)));
      return left.length ? this.turtle(left, loaded.prefixes) : '';
    });
    // a statement removed whole takes the blank lines before it along (a comment before it stays)
    loaded.pieces.forEach((piece, i) => {
      if (piece.kind === 'statement' && texts[i] === '' && i > 0 && loaded.pieces[i - 1]!.kind === 'trivia' && texts[i - 1]!.trim() === '') texts[i - 1] = '';
    });
    if (added.length) {
      const block = this.turtle(added, loaded.prefixes);
      if (anchor < 0) texts.push(`${texts.length && !texts[texts.length - 1]!.endsWith('\n') ? '\n' : ''}${block}\n`);
      else {
        // after the line the anchor statement ends (its comment stays on it)
        const next = loaded.pieces[anchor + 1];
        const newline = next?.kind === 'trivia' ? texts[anchor + 1]!.indexOf('\n') : -1;
        if (newline >= 0) texts[anchor + 1] = `${texts[anchor + 1]!.slice(0, newline + 1)}${block}\n${texts[anchor + 1]!.slice(newline + 1)}`;
        else texts[anchor] = `${texts[anchor]}${texts[anchor] ? '\n' : ''}${block}`;
      }
    }
    await this.system.replace(texts.join(''));
  }

  /** Triples as Turtle statements with the file's prefixes (no prefix lines), without a final newline. */
  private turtle(triples: readonly Quad[], prefixes: Record<string, string>): string {
    // blank nodes N3.js made up in a parse (`n3-12`) or an update made get labels of their own, so no later parse can meet them again
    const relabelled = new Map<string, string>();
    const term = <T extends Quad['subject'] | Quad['object']>(t: T): T => {
      if (t.termType !== 'BlankNode' || !/^n3-\d+$|^[0-9a-f]{16,}$/.test(t.value)) return t;
      let label = relabelled.get(t.value);
      if (!label) relabelled.set(t.value, (label = `b${randomBytes(6).toString('hex')}`));
      return DataFactory.blankNode(label) as unknown as T;
    };
    const writer = new Writer({ format: TURTLE, prefixes });
    let out = '';
    writer.addQuads(triples.map((q) => quad(term(q.subject), q.predicate, term(q.object))) as Parameters<Writer['addQuads']>[0]);
    writer.end((error, result) => {
      if (error) throw error;
      out = result;
    });
    return out.split('\n').filter((line) => !/^@prefix /.test(line)).join('\n').trim();
  }
}
