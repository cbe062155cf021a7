/**
 * The history of the documents of a versioned dataspace (SPEC §3, §9.1), below HTTP: a document's
 * versions (from the dataspace's version log), the document as at a commit, the version closest
 * to a time, the TimeMap as a PROV-O graph, the difference of two versions, and restoring one.
 * Commit ids may be abbreviated as git prints them; a malformed one is a BadRequest, an absent
 * version NotFound.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import type { Dataspace } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import { isObjectId } from '../git/objects.js';
import { lineDifference } from '../rdf/canonical-lines.js';
import { NTRIPLES } from '../rdf/formats.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { isWebIdAuthor, type Version, type VersionLog } from '../store/version-log.js';
import type { WriteRequest, WriteResult } from './writes.js';
import type { WriteConditions } from './preconditions.js';
import { lookupPath } from '../store/trees.js';
import { describedSha1, uploadBlobPath } from './upload-layout.js';
import { blame, versionsToBlame, type BlameResult, type BlameWork } from './blame.js';

/** Where blame runs: the thread map's `blame` pool in a server (blame-worker.ts), in process by default. */
export type BlameRunner = (work: BlameWork, readBlob: (id: string) => Promise<Buffer>) => Promise<BlameResult>;

export type { Version } from '../store/version-log.js';
/** The blame pool's calls (blame-worker.ts answers them). */
export type { BlameWork } from './blame.js';

/** An abbreviated commit id as `git log --oneline` prints it (git accepts 4 digits and up). */
const SHORT_SHA = /^[0-9a-f]{4,39}$/;

/** A memento: the document as one commit left it. */
export interface Memento {
  commit: string;
  /** Its blob id. */
  blob: string;
  /** The commit's time, seconds since the epoch. */
  time: number;
}

/**
 * The version closest in time to `wanted` (seconds), ties going to the more recent (SPEC §9.1,
 * TimeGate 1). `list` runs oldest first and must not be empty.
 */
export function closestVersion(list: readonly Version[], wanted: number): Version {
  let chosen = list[0]!;
  let distance = Infinity;
  for (const v of list) {
    if (Math.abs(v.time - wanted) <= distance) {
      chosen = v;
      distance = Math.abs(v.time - wanted);
    }
  }
  return chosen;
}

/** What a TimeMap tells of each version beside its time: its commit's message (versionMessage), and its authors' names by WebID. */
export interface VersionNotes {
  messages?: ReadonlyMap<string, string>;
  names?: Readonly<Record<string, string>>;
}

/**
 * What a version's commit says of itself: its message without the `<METHOD> <document URL>` line
 * the server writes first (DESIGN "Commits"), so '' when that is all; a message written with git
 * is kept whole.
 */
export function versionMessage(message: string): string {
  const text = message.replace(/\s+$/, '');
  const match = /^(?:PUT|POST|PATCH|DELETE) \S+(?:\n\n|$)/.exec(text);
  return match ? text.slice(match[0].length) : text;
}

/**
 * SPEC §9.1, TimeMap 1: one prov:Collection with a prov:Entity per memento (`mementoUrl` names
 * each), its author as dct:creator (a WebID, with the foaf:name the server knows for it; any other
 * name, as git recorded it, on a blank node) and its commit's message as dct:description.
 */
export function timemapGraph(documentUrl: string, list: readonly Version[], mementoUrl: (v: Version) => string, notes: VersionNotes = {}): Quad[] {
  const { namedNode, literal, quad, blankNode } = DataFactory;
  const type = namedNode(RDF_TYPE);
  const name = namedNode(ns.foaf + 'name');
  const collection = namedNode(`${documentUrl}?timemap`);
  const out: Quad[] = [quad(collection, type, namedNode(ns.prov + 'Collection'))];
  const named = new Set<string>();
  list.forEach((v, i) => {
    const entity = namedNode(mementoUrl(v));
    out.push(
      quad(collection, namedNode(ns.prov + 'hadMember'), entity),
      quad(entity, type, namedNode(ns.prov + 'Entity')),
      quad(entity, namedNode(ns.prov + 'specializationOf'), namedNode(documentUrl)),
      quad(entity, namedNode(ns.prov + 'generatedAtTime'), literal(new Date(v.time * 1000).toISOString(), namedNode(ns.xsd + 'dateTime'))),
    );
    if (i > 0) out.push(quad(entity, namedNode(ns.prov + 'wasRevisionOf'), namedNode(mementoUrl(list[i - 1]!))));
    if (isWebIdAuthor(v.author)) {
      out.push(quad(entity, namedNode(ns.dct + 'creator'), namedNode(v.author)));
      const known = notes.names?.[v.author];
      if (known && !named.has(v.author)) out.push(quad(namedNode(v.author), name, literal(known)));
      named.add(v.author);
    } else if (v.author !== 'anonymous' && v.author !== '') {
      const person = blankNode(`author${i}`);
      out.push(quad(entity, namedNode(ns.dct + 'creator'), person), quad(person, name, literal(v.author)));
    }
    const message = notes.messages?.get(v.commit);
    if (message) out.push(quad(entity, namedNode(ns.dct + 'description'), literal(message)));
  });
  return out;
}

/** What the history needs of the current documents (the document service). */
export interface CurrentDocuments {
  url(relativePath: string): string;
  read(relativePath: string): Promise<{ bytes: Buffer } | undefined>;
  write(request: WriteRequest): Promise<WriteResult>;
}

export class DocumentHistory {
  private readonly messageOf = new Map<string, string>();

  constructor(
    private readonly dataspace: Dataspace,
    private readonly log: VersionLog,
    private readonly documents: CurrentDocuments,
    private readonly runBlame: BlameRunner = blame,
  ) {}

  /**
   * The message of each of `commits` (versionMessage), read from the commits themselves: the
   * version log keeps what every TimeMap needs, a message only the pages and RDF TimeMaps show.
   */
  async messages(commits: Iterable<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const commit of commits) {
      let message = this.messageOf.get(commit);
      if (message === undefined) {
        message = versionMessage((await this.dataspace.store.objects.readCommit(commit)).message);
        if (this.messageOf.size > 50_000) this.messageOf.clear();
        this.messageOf.set(commit, message); // a commit never changes
      }
      out.set(commit, message);
    }
    return out;
  }

  /** The versions blame reads (since the document was last created), oldest first: empty when it has none now. */
  async blameVersions(relativePath: string): Promise<Version[]> {
    await this.log.idle();
    return versionsToBlame(this.log.of(this.dataspace.fileOf(relativePath)));
  }

  /**
   * Blame of the document (blame.ts) over `versions` (from `blameVersions`), the lines of `hidden`
   * predicates left out, written in `type` (undefined: the attribution only).
   */
  blame(relativePath: string, versions: readonly Version[], hidden: readonly string[], type: string | undefined): Promise<BlameResult> {
    const work: BlameWork = { op: 'blame', gitdir: this.dataspace.store.gitdir, documentUrl: this.documents.url(relativePath), versions, hidden, type };
    return this.runBlame(work, (id) => this.dataspace.store.readBlob(id));
  }

  /** The versions of a document that left it present, oldest first (the log caught up first). */
  async mementos(relativePath: string): Promise<Version[]> {
    await this.log.idle();
    return this.log.of(this.dataspace.fileOf(relativePath)).filter((v) => v.blob !== null);
  }

  /**
   * The full id of commit `sha`, which may be abbreviated as git prints it (`7a5a760`); an id that
   * is no commit id at all is a BadRequest, an abbreviation that names several commits a Conflict
   * listing them, one that names none undefined.
   */
  async commit(sha: string): Promise<string | undefined> {
    if (isObjectId(sha)) return sha;
    if (!SHORT_SHA.test(sha)) throw new LodestoneError('BadRequest', `"${sha.slice(0, 64)}" is not a commit id (4 to 40 lower-case hexadecimal digits, as git prints them)`);
    const found = await this.dataspace.store.objects.commitsWithPrefix(sha);
    if (found.length > 1) throw new LodestoneError('Conflict', `the abbreviated commit id ${sha} names ${found.length} commits (${found.slice(0, 5).join(', ')}): give more digits`);
    return found[0];
  }

  /** The document as commit `sha` (full or abbreviated) left it; undefined when absent there or there is no such commit. */
  async at(relativePath: string, sha: string): Promise<Memento | undefined> {
    const commit = await this.commit(sha);
    const found = commit && (await this.log.blobAt(this.dataspace.fileOf(relativePath), commit));
    return found ? { commit: commit!, ...found } : undefined;
  }

  /** The canonical bytes of a memento's blob. */
  bytesOf(memento: Memento): Promise<Buffer> {
    return this.dataspace.store.readBlob(memento.blob);
  }

  /** The bytes of the document at `sha`, or NotFound. */
  private async bytesAt(relativePath: string, sha: string): Promise<Buffer> {
    const found = await this.at(relativePath, sha);
    if (!found) throw new LodestoneError('NotFound', `${this.documents.url(relativePath)} did not exist at commit ${sha}, or there is no such commit`);
    return this.bytesOf(found);
  }

  /** The triples removed and added between the versions of `from` and `to` (the current document when undefined). */
  async diff(relativePath: string, from: string, to: string | undefined): Promise<{ removed: string[]; added: string[] }> {
    const before = (await this.bytesAt(relativePath, from)).toString('utf8');
    const after = to ? (await this.bytesAt(relativePath, to)).toString('utf8') : ((await this.documents.read(relativePath))?.bytes.toString('utf8') ?? '');
    return lineDifference(before, after);
  }

  /**
   * Restores a version (SPEC §3): one new commit whose triples are that version's (the server's
   * metadata apart), under the same preconditions as any write. The description of an uploaded
   * file deleted since brings its file back from that version too (upload-layout.ts).
   */
  async restore(relativePath: string, sha: string, agent: string | undefined, conditions: WriteConditions, message?: string): Promise<WriteResult> {
    const commit = (await this.commit(sha)) ?? sha; // an abbreviated id is resolved once
    const bytes = await this.bytesAt(relativePath, commit);
    return this.documents.write({
      method: 'POST',
      relativePath,
      agent,
      body: { text: bytes.toString('utf8'), mediaType: NTRIPLES },
      replace: true,
      note: `Restores the version of ${commit}.${message ? `\n\n${message}` : ''}`,
      conditions,
      attach: await this.uploadAt(relativePath, commit),
    });
  }

  /** The blob of the file a description describes as `commit` had it, when HEAD has it no more. */
  private async uploadAt(relativePath: string, commit: string): Promise<WriteRequest['attach']> {
    const sha1 = describedSha1(relativePath);
    if (sha1 === undefined) return undefined;
    const { store } = this.dataspace;
    const path = uploadBlobPath(store.prefix, sha1);
    if (store.blobId(path) !== undefined) return undefined;
    const entry = await lookupPath(store.trees, (await store.objects.readCommit(commit)).tree, path);
    return entry && [{ path, bytes: await store.readBlob(entry.id), blobId: entry.id }];
  }
}
