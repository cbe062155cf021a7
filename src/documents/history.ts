/**
 * The history of the documents of a versioned dataspace (SPEC §3, §9.1), below HTTP: a document's
 * versions (from the dataspace's version log), the document as at a commit, the version closest
 * to a time, the TimeMap as a PROV-O graph, the difference of two versions, and restoring one.
 * A commit id that is not 40 lower-case hexadecimal digits is a BadRequest; an absent version is
 * NotFound.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import type { Dataspace } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import { lineDifference } from '../rdf/canonical-lines.js';
import { NTRIPLES } from '../rdf/formats.js';
import { ns } from '../rdf/namespaces.js';
import type { Version, VersionLog } from '../store/version-log.js';
import type { WriteRequest, WriteResult } from './writes.js';

export type { Version } from '../store/version-log.js';

const SHA = /^[0-9a-f]{40}$/;

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

/** SPEC §9.1, TimeMap 1: one prov:Collection with a prov:Entity per memento (`mementoUrl` names each). */
export function timemapGraph(documentUrl: string, list: readonly Version[], mementoUrl: (v: Version) => string): Quad[] {
  const { namedNode, literal, quad } = DataFactory;
  const type = namedNode(ns.rdf + 'type');
  const collection = namedNode(`${documentUrl}?timemap`);
  const out: Quad[] = [quad(collection, type, namedNode(ns.prov + 'Collection'))];
  list.forEach((v, i) => {
    const entity = namedNode(mementoUrl(v));
    out.push(
      quad(collection, namedNode(ns.prov + 'hadMember'), entity),
      quad(entity, type, namedNode(ns.prov + 'Entity')),
      quad(entity, namedNode(ns.prov + 'specializationOf'), namedNode(documentUrl)),
      quad(entity, namedNode(ns.prov + 'generatedAtTime'), literal(new Date(v.time * 1000).toISOString(), namedNode(ns.xsd + 'dateTime'))),
    );
    if (i > 0) out.push(quad(entity, namedNode(ns.prov + 'wasRevisionOf'), namedNode(mementoUrl(list[i - 1]!))));
    if (/^https?:\/\//.test(v.author)) out.push(quad(entity, namedNode(ns.dct + 'creator'), namedNode(v.author)));
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
  constructor(
    private readonly dataspace: Dataspace,
    private readonly log: VersionLog,
    private readonly documents: CurrentDocuments,
  ) {}

  /** The versions of a document that left it present, oldest first (the log caught up first). */
  async mementos(relativePath: string): Promise<Version[]> {
    await this.log.idle();
    return this.log.of(this.dataspace.fileOf(relativePath)).filter((v) => v.blob !== null);
  }

  /** The document as commit `sha` left it; undefined when absent there or there is no such commit. */
  async at(relativePath: string, sha: string): Promise<Memento | undefined> {
    if (!SHA.test(sha)) throw new LodestoneError('BadRequest', `"${sha}" is not a commit id (40 lower-case hexadecimal digits)`);
    const found = await this.log.blobAt(this.dataspace.fileOf(relativePath), sha);
    return found && { commit: sha, ...found };
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
   * metadata apart), under the same preconditions as any write.
   */
  async restore(relativePath: string, sha: string, agent: string | undefined, precondition: (current: string | undefined) => void): Promise<WriteResult> {
    const bytes = await this.bytesAt(relativePath, sha);
    return this.documents.write({
      method: 'POST',
      relativePath,
      agent,
      body: { text: bytes.toString('utf8'), mediaType: NTRIPLES },
      replace: true,
      note: `Restores the version of ${sha}.`,
      precondition,
    });
  }
}
