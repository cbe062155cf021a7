/**
 * Blame of a document (issue 30): each triple of its newest version with the version that brought
 * it, the oldest of the unbroken run of versions (first-parent history, store/version-log.ts) whose
 * files hold its line, back from the newest; a deletion ends every run. Lines are compared as text,
 * so a blank node is matched by its canonical label (RDFC-1.0: stable while the blank nodes' own
 * triples sort them alike). The answer is a reified graph (rdf:Statement, PROV-O), made where this
 * runs: in the `blame` pool (blame-worker.ts), from blobs read there, never on the request thread.
 */
import { DataFactory } from 'n3';
import { LodestoneError } from '../errors.js';
import { serialise } from '../rdf/formats.js';
import { parseRdf, termToNTriples } from '../rdf/ntriples.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { lineTerms, withoutPredicate } from '../rdf/canonical-lines.js';
import { isWebIdAuthor, type Version } from '../store/version-log.js';

/** A call of the blame pool: the versions of one document, oldest first, none deleted (`versionsToBlame`). */
export interface BlameWork {
  op: 'blame';
  /** The repository's git directory, where the blobs are read. */
  gitdir: string;
  documentUrl: string;
  versions: readonly Version[];
  /** Predicates whose lines the asker is not shown (an agent document's foaf:mbox: document-read.ts `viewOf`). */
  hidden: readonly string[];
  /** The RDF media type to write the answer in; undefined: the attribution only (for the page). */
  type: string | undefined;
}

export interface BlameResult {
  /** The newest version's lines the asker is shown, in file order. */
  lines: string[];
  /** For each line, the index in `versions` of the version that brought it. */
  origins: number[];
  /** The blame graph in the type asked for. */
  body?: string;
}

/** The versions blame reads: those since the document was last created (a deletion ends every run), oldest first; empty when it is deleted now. */
export function versionsToBlame(versions: readonly Version[]): Version[] {
  let start = versions.length;
  while (start > 0 && versions[start - 1]!.blob !== null) start--;
  return versions.slice(start);
}

/** A file's lines as text, trailing spaces dropped (a hand-edited file may have them; canonical ones never do). */
function linesIn(text: string): string[] {
  return text.split('\n').map((line) => line.trimEnd()).filter((line) => line !== '' && !line.startsWith('#'));
}

/** Whether `lines` run in strictly ascending order (canonical files do, as JavaScript compares them unless astral characters occur). */
function ascending(lines: readonly string[]): boolean {
  for (let i = 1; i < lines.length; i++) if (!(lines[i - 1]! < lines[i]!)) return false;
  return true;
}

/** Which of `open` (indices into `current`, ascending) `lines` holds: a merge of two sorted lists when both are sorted, else a set. */
function stillHeld(current: readonly string[], open: readonly number[], lines: readonly string[], sorted: boolean): number[] {
  if (!sorted || !ascending(lines)) {
    const held = new Set(lines);
    return open.filter((i) => held.has(current[i]!));
  }
  const kept: number[] = [];
  let j = 0;
  for (const i of open) {
    const line = current[i]!;
    while (j < lines.length && lines[j]! < line) j++;
    if (lines[j] === line) kept.push(i);
  }
  return kept;
}

/**
 * For each of `current` (the newest version's lines), the index of the version that brought it:
 * walks `older(i)` (the lines of version i) from the newest down while any line is still in an
 * unbroken run, reading no version once none is.
 */
export async function blameOrigins(current: readonly string[], newest: number, older: (index: number) => Promise<string[]>): Promise<number[]> {
  const origins = current.map(() => newest);
  const sorted = ascending(current); // a hand edit may leave a version unsorted: those are compared as sets
  let open = current.map((_, i) => i);
  for (let v = newest - 1; v >= 0 && open.length > 0; v--) {
    open = stillHeld(current, open, await older(v), sorted);
    for (const i of open) origins[i] = v;
  }
  return origins;
}

/** The three terms of an N-Triples line, as N-Triples; canonical lines are split where they are, others parsed. */
function termsOf(line: string): [string, string, string] {
  const terms = lineTerms(line);
  if (terms) return terms;
  const [quad] = parseRdf(line, { keepBlankNodeLabels: true });
  if (!quad) throw new LodestoneError('Corrupt', `a stored line is no triple: ${line.slice(0, 200)}`);
  return [termToNTriples(quad.subject), termToNTriples(quad.predicate), termToNTriples(quad.object)];
}

const iri = (value: string) => termToNTriples(DataFactory.namedNode(value));
const plainLiteral = (value: string) => termToNTriples(DataFactory.literal(value));
const dateTime = (seconds: number) => `"${new Date(seconds * 1000).toISOString()}"^^<${ns.xsd}dateTime>`;

/**
 * The blame graph as N-Triples: `<doc?blame>` a prov:Bundle about the document; each triple an rdf:Statement (RDF 1.1
 * reification, which every RDF client reads) with prov:wasGeneratedBy the commit (`<doc?blame#commit-<sha>>`,
 * a prov:Activity that generated the memento `<doc?version=<sha>>`), prov:generatedAtTime and
 * prov:wasAttributedTo its author (the WebID, or a prov:Agent with its foaf:name).
 */
export function blameGraph(documentUrl: string, versions: readonly Version[], lines: readonly string[], origins: readonly number[]): string {
  const out: string[] = [];
  const add = (s: string, p: string, o: string) => out.push(`${s} ${iri(p)} ${o} .`);
  const self = iri(`${documentUrl}?blame`);
  add(self, RDF_TYPE, iri(ns.prov + 'Bundle'));
  add(self, ns.dct + 'subject', iri(documentUrl));
  const named = [...new Set(versions.map((v) => v.author))];
  const agentOf = (author: string) => (isWebIdAuthor(author) ? iri(author) : `_:blame-agent${named.indexOf(author)}`);
  const described = new Set<number>();
  lines.forEach((line, i) => {
    const v = versions[origins[i]!]!;
    const [subject, predicate, object] = termsOf(line);
    const statement = `_:blame-triple${i}`;
    const commit = iri(`${documentUrl}?blame#commit-${v.commit}`);
    add(statement, RDF_TYPE, iri(ns.rdf + 'Statement'));
    out.push(`${statement} ${iri(ns.rdf + 'subject')} ${subject} .`, `${statement} ${iri(ns.rdf + 'predicate')} ${predicate} .`, `${statement} ${iri(ns.rdf + 'object')} ${object} .`);
    add(statement, ns.prov + 'wasGeneratedBy', commit);
    add(statement, ns.prov + 'generatedAtTime', dateTime(v.time));
    add(statement, ns.prov + 'wasAttributedTo', agentOf(v.author));
    if (described.has(origins[i]!)) return;
    described.add(origins[i]!);
    const memento = iri(`${documentUrl}?version=${v.commit}`);
    add(commit, RDF_TYPE, iri(ns.prov + 'Activity'));
    add(commit, ns.dct + 'identifier', plainLiteral(v.commit));
    add(commit, ns.prov + 'endedAtTime', dateTime(v.time));
    add(commit, ns.prov + 'wasAssociatedWith', agentOf(v.author));
    add(commit, ns.prov + 'generated', memento);
    add(memento, RDF_TYPE, iri(ns.prov + 'Entity'));
    add(memento, ns.prov + 'specializationOf', iri(documentUrl));
    add(memento, ns.prov + 'generatedAtTime', dateTime(v.time));
    if (!isWebIdAuthor(v.author)) {
      add(agentOf(v.author), RDF_TYPE, iri(ns.prov + 'Agent'));
      add(agentOf(v.author), ns.foaf + 'name', plainLiteral(v.author));
    }
  });
  return [...new Set(out)].join('\n') + '\n';
}

/** Blame as the pool computes it, reading blobs with `readBlob`. */
export async function blame(work: BlameWork, readBlob: (id: string) => Promise<Buffer>): Promise<BlameResult> {
  const { versions } = work;
  if (versions.length === 0 || versions.some((v) => v.blob === null)) throw new LodestoneError('NotFound', `${work.documentUrl} has no versions to blame`);
  const shown = (bytes: Buffer) => work.hidden.reduce((text, predicate) => withoutPredicate(text, predicate), bytes.toString('utf8'));
  const lines = linesIn(shown(await readBlob(versions[versions.length - 1]!.blob!)));
  const origins = await blameOrigins(lines, versions.length - 1, async (i) => linesIn((await readBlob(versions[i]!.blob!)).toString('utf8')));
  if (work.type === undefined) return { lines, origins };
  return { lines, origins, body: await serialise(blameGraph(work.documentUrl, versions, lines, origins), work.type) };
}
