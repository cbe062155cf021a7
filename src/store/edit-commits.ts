/**
 * What the working tree's commit for someone's edit of a `.nt` file says (worktree.ts): after whom
 * it was made and what it did. An edit someone committed with git keeps that commit's author (the
 * service is the committer) and names the commit; an edit of the working tree alone is a hand edit.
 * The document's dct:modified (SPEC §2.2) is set to the time the edit came in, as for an HTTP write.
 * Bytes that are no N-Triples, or break an ontology constraint, are logged and left alone.
 */
import { isLodestoneError, LodestoneError } from '../errors.js';
import { shallowCanonicalBytes } from '../rdf/canonical.js';
import { replaceLiteral, literalObject } from '../rdf/canonical-lines.js';
import { parseRdf } from '../rdf/ntriples.js';
import { ns } from '../rdf/namespaces.js';
import type { GitStore, Identity } from './git-store.js';
import { lookupPath } from './trees.js';

/** The author of an edit someone made to a file of the working tree: no agent of the server, nor an anonymous request. */
export const HAND_EDIT: Identity = { name: 'hand edit', email: 'hand-edit@lodestone.invalid' };

/** How far back along first parents the commit that wrote a file's bytes is looked for. */
const MAX_WALK = 1000;

/** The commit of the branch that left `path` holding `blob`, when HEAD holds it (someone committed it with git). */
export async function commitThatWrote(store: GitStore, path: string, blob: string): Promise<{ commit: string; author: Identity } | undefined> {
  let id = store.head;
  for (let steps = 0; id && steps < MAX_WALK; steps++) {
    const commit = await store.objects.readCommit(id);
    const parent = commit.parents[0];
    const before = parent === undefined ? undefined : await lookupPath(store.trees, (await store.objects.readCommit(parent)).tree, path);
    if (before?.id !== blob) return { commit: id, author: { name: commit.author.name, email: commit.author.email } };
    id = parent;
  }
  return undefined;
}

/**
 * The canonical bytes with the document's dct:modified set to `now`; as they were when they have
 * none (a file that is no document of the server's), or when the edit set it itself, so that it
 * differs from `previous`'s (another server's writes brought in by a pull, say).
 */
export function withModified(canonical: Buffer, previous: Buffer | undefined, url: string, now: string): Buffer {
  const text = canonical.toString('utf8');
  const before = literalObject(text, url, ns.dct + 'modified');
  if (previous && literalObject(previous.toString('utf8'), url, ns.dct + 'modified') !== before) return canonical;
  // xsd:dateTime with milliseconds in UTC has one length: the line keeps its place in the sorted file
  return before === undefined || before.length !== now.length ? canonical : Buffer.from(replaceLiteral(text, url, ns.dct + 'modified', before, now), 'utf8');
}

export interface EditCommit {
  author: Identity;
  message: string;
}

/**
 * The author and message of the commit that takes in an edit of `path` (document `url`): `by` the
 * commit that wrote the bytes, when someone committed them; `reordered` when the canonical form
 * differs from the bytes as written, `modified` when dct:modified was set.
 */
export function editCommit(url: string, path: string, by: { commit: string; author: Identity } | undefined, reordered: boolean, modified: string | undefined): EditCommit {
  const what = by ? `the lines of ${by.commit.slice(0, 12)} by ${by.author.name}` : `the lines of ${path} as edited in the working tree`;
  const done = [reordered ? `Canonical order of ${what}.` : `${what[0]!.toUpperCase()}${what.slice(1)}, already in canonical order.`];
  if (modified) done.push(`dct:modified set to ${modified}.`);
  return { author: by?.author ?? HAND_EDIT, message: `PUT ${url}\n\n${done.join(' ')}` };
}

/** How an edit's bytes are checked: deep blank-node labelling, ontology constraints, where refusals are logged. */
export interface EditChecks {
  labelDeep: (ntriples: string, what: string) => Promise<Buffer>;
  validate: ((url: string, bytes: Buffer) => Promise<void>) | undefined;
  log: (line: string) => void;
  /** The file as a person finds it, for the log. */
  where: string;
}

/**
 * The canonical bytes of an edit of `path` (document `url`); undefined when they are no N-Triples
 * (logged with file, line and column) or break an ontology constraint (logged with the report's
 * sentences): such an edit is left alone.
 */
export async function canonicalEdit(bytes: Buffer, path: string, url: string, checks: EditChecks): Promise<Buffer | undefined> {
  let canonical: Buffer;
  try {
    const shallow = await shallowCanonicalBytes(parseRdf(decodeUtf8(bytes, path), { format: 'N-Triples' }));
    canonical = Buffer.isBuffer(shallow) ? shallow : await checks.labelDeep(shallow.deep, path);
  } catch (error) {
    if (!isLodestoneError(error)) throw error;
    const at = error.data.line ? `${error.data.line}:${error.data.column}` : '1:1';
    checks.log(`${checks.where}:${at}: invalid N-Triples, not committed: ${error.message}`);
    return undefined;
  }
  if (checks.validate) {
    try {
      await checks.validate(url, canonical);
    } catch (error) {
      if (!isLodestoneError(error, 'ConstraintViolation')) throw error;
      checks.log(`${checks.where}: not committed: ${error.message}`);
      return undefined;
    }
  }
  return canonical;
}

function decodeUtf8(bytes: Buffer, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new LodestoneError('SyntaxError', `${path} is not valid UTF-8`, { line: 1, column: 1 });
  }
}
