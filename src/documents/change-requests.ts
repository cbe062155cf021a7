/**
 * Change requests (issue 30): what a branch changed since it parted from the main branch, document
 * by document and triple by triple, and its merge into the main branch as ONE commit on main, per
 * document a three-way merge of the triple sets (rdf/three-way.ts) against the merge base (`git
 * merge-base`). A conflict anywhere commits nothing. The commit on main has one parent: main's
 * history stays a first-parent chain that the mirror replays SHA-identical and the TimeMap, blame
 * and queries of the past walk; the branch then gets a merge commit of its own (parents: its HEAD
 * and main's new commit: Branches.recordMerge), so git shows where it was merged and its next
 * merge starts from there.
 * The server's own `dct:modified` of a document never conflicts: the later of the two stays.
 * The diffs and three-way merges, whose cost is the documents' size, run where `BranchWorkRunner`
 * runs them (branch-work.ts: the `branches` pool in a server), never on the request thread.
 */
import { agentIdentity, type Dataspace } from '../dataspace.js';
import { fileDocument } from '../document-paths.js';
import { LodestoneError } from '../errors.js';
import { ns } from '../rdf/namespaces.js';
import type { MergeOutcome, TripleConflict } from '../rdf/three-way.js';
import { branchName, MERGED_TRAILER, mergeRecordSubject } from '../store/branches.js';
import type { Change } from '../store/git-store.js';
import { diffTrees } from '../store/trees.js';
import { branchWork, type BranchWork, type BranchWorkRunner, type DiffResult, type MergeInput } from './branch-work.js';

/** The branches pool's calls (branch-worker.ts answers them). */
export type { BranchWork } from './branch-work.js';

/** One document a branch changed: its file's blob at the merge base and on the branch (undefined: absent). */
export interface ChangedDocument {
  relativePath: string;
  path: string;
  before: string | undefined;
  after: string | undefined;
}

export interface DocumentConflicts {
  url: string;
  /** Set when one side deleted the document the other changed. */
  deletedOn?: 'main' | 'branch';
  triples: TripleConflict[];
}

export class ChangeRequests {
  constructor(
    private readonly dataspace: Dataspace,
    private readonly runWork: BranchWorkRunner = branchWork,
  ) {}

  private work(work: BranchWork): Promise<DiffResult | MergeOutcome[]> {
    return this.runWork(work, (id) => this.dataspace.store.readBlob(id));
  }

  private url(relativePath: string): string {
    return this.dataspace.base + relativePath;
  }

  /** A document as the branch has it: its blob id (undefined: absent there), or NotFound when there is no such branch. */
  async blobOn(name: string, relativePath: string): Promise<string | undefined> {
    const { store, branches } = this.dataspace;
    const files = await branches.files(branchName(name, store.branch));
    if (!files) throw new LodestoneError('NotFound', `there is no branch ${name}`);
    return files.get(this.dataspace.fileOf(relativePath));
  }

  /** The first line of the commit on main that merges `branch`. */
  private mergeSubject(branch: string): string {
    return `MERGE ${this.dataspace.base}?branch=${branch}`;
  }

  /**
   * Records the merges a kill left unrecorded: a commit on main that took a branch's changes
   * (its subject and MERGED_TRAILER say which, at which HEAD) that the branch does not hold:
   * without the merge commit on the branch (Branches.recordMerge) its next merge would start from
   * the old base and report false conflicts. Run at startup and before each merge; gives the
   * branches recorded.
   */
  async recoverMerges(): Promise<string[]> {
    const { store, branches } = this.dataspace;
    const recorded: string[] = [];
    const seen = new Set<string>();
    for (const { commit, branch, head } of await branches.recentMerges()) {
      const { message, author } = await store.objects.readCommit(commit);
      if (message.split('\n')[0] !== this.mergeSubject(branch)) continue; // the trailer counts on the server's own merge commits only
      if (seen.has(branch)) continue; // a branch's newest merge only: one held holds the older ones
      seen.add(branch);
      if (await branches.recordMerge(branch, head, commit, { name: author.name, email: author.email })) recorded.push(branch);
    }
    return recorded;
  }

  /** Deletes the branch (its ref) if its HEAD is still `expected`, and then its change request's comments. */
  async discard(name: string, expected: string): Promise<void> {
    const branch = branchName(name, this.dataspace.store.branch);
    await this.dataspace.branches.discard(branch, expected);
    await this.dataspace.commentThreads.remove(branch);
  }

  /**
   * The branch's HEAD and the documents it changed since the merge base; undefined when there is no
   * such branch. A branch merged since (nothing changed since, its HEAD the record of main's merge
   * commit: Branches.recordMerge) gives what that merge changed on main, and the commit, so its
   * change request and comments are still served, as merged.
   */
  async changed(name: string): Promise<{ head: string; documents: ChangedDocument[]; merged?: string } | undefined> {
    const { store, branches } = this.dataspace;
    const branch = branchName(name, store.branch);
    const changes = await branches.changes(branch);
    if (!changes) return undefined;
    const merged = changes.files.length === 0 ? await this.mergedAs(branch, changes.head) : undefined;
    const files = merged ? await diffTrees(store.trees, merged.before, merged.after, store.prefix) : changes.files;
    const documents: ChangedDocument[] = [];
    for (const file of files) {
      // an uploaded file's blob goes with its description, which is listed (upload-layout.ts)
      const relativePath = fileDocument(file.path, store.prefix);
      if (relativePath !== undefined) documents.push({ relativePath, path: file.path, before: file.before, after: file.after });
    }
    return { head: changes.head, documents, ...(merged && { merged: merged.commit }) };
  }

  /** Main's merge commit of `branch` that the branch's HEAD records (undefined: it records none), with the trees before and after it. */
  private async mergedAs(branch: string, head: string): Promise<{ commit: string; before: string | undefined; after: string } | undefined> {
    const objects = this.dataspace.store.objects;
    const record = await objects.readCommit(head);
    const commit = record.parents[1];
    if (record.parents.length !== 2 || commit === undefined || record.message.split('\n')[0] !== mergeRecordSubject(branch)) return undefined;
    const merge = await objects.readCommit(commit);
    if (merge.message.split('\n')[0] !== this.mergeSubject(branch)) return undefined; // the server's own merge commit only
    const parent = merge.parents[0];
    return { commit, before: parent === undefined ? undefined : (await objects.readCommit(parent)).tree, after: merge.tree };
  }

  /** The triples removed and added on the branch, of each document in `documents`. */
  async diff(documents: readonly ChangedDocument[]): Promise<Array<{ url: string; removed: string[]; added: string[] }>> {
    if (documents.length === 0) return [];
    const diffs = (await this.work({ op: 'diff', gitdir: this.dataspace.store.gitdir, documents: documents.map((d) => ({ before: d.before, after: d.after })) })) as DiffResult;
    return documents.map((d, i) => ({ url: this.url(d.relativePath), ...diffs[i]! }));
  }

  /**
   * Merges the branch into the main branch if its HEAD is still `expected` (412 when it moved): one
   * commit on main by `agent` (and a merge commit on the branch), or none when main holds every change already; a 409 listing the
   * conflicting triples per document (and nothing committed) when the sides disagree.
   */
  async merge(name: string, expected: string, agent: string | undefined): Promise<{ commit: string | undefined }> {
    const { store, branches } = this.dataspace;
    const branch = branchName(name, store.branch);
    let merging: string | undefined;
    const author = agentIdentity(agent);
    // a merge left unrecorded would make this one start from the old base; its record moves the branch from the HEAD the client reviewed, which it still means
    if ((await this.recoverMerges()).includes(branch)) {
      const head = await branches.head(branch);
      if (head !== undefined && (await store.objects.readCommit(head)).parents[0] === expected) expected = head;
    }
    const { commit } = await store.transact(async (view) => {
      const head = await branches.head(branch);
      if (head === undefined) throw new LodestoneError('NotFound', `there is no branch ${branch}`);
      if (head !== expected) throw new LodestoneError('PreconditionFailed', `the branch ${branch} is at ${head} now, not ${expected}: review it again`, { etag: `"${head}"` });
      const changes = (await branches.changes(branch))!;
      if (changes.base === head) return { result: undefined }; // merged already: main has every commit of it
      merging = head;
      const merged: Change[] = [];
      const conflicts: DocumentConflicts[] = [];
      const both: Array<{ path: string; url: string }> = [];
      const toMerge: MergeInput[] = [];
      for (const file of changes.files) {
        const ours = view.blobId(file.path);
        if (ours === file.after) continue; // main has it already
        if (ours === file.before) {
          merged.push({ path: file.path, bytes: file.after === undefined ? null : await store.readBlob(file.after) });
          continue;
        }
        const relativePath = fileDocument(file.path, store.prefix);
        const url = relativePath === undefined ? file.path : this.url(relativePath);
        if (relativePath === undefined) {
          conflicts.push({ url, triples: [] }); // a file that is no document (an uploaded file) changed on both sides
          continue;
        }
        both.push({ path: file.path, url });
        toMerge.push({ base: file.before, ours, theirs: file.after, modified: `<${url}> <${ns.dct}modified>` });
      }
      const outcomes = both.length === 0 ? [] : ((await this.work({ op: 'merge', gitdir: store.gitdir, documents: toMerge })) as MergeOutcome[]);
      both.forEach(({ path, url }, i) => {
        const outcome = outcomes[i]!;
        if ('merged' in outcome) merged.push({ path, bytes: outcome.merged === null ? null : Buffer.from(outcome.merged) });
        else conflicts.push({ url, triples: outcome.conflicts, ...(outcome.deleted ? { deletedOn: outcome.deleted === 'ours' ? ('main' as const) : ('branch' as const) } : {}) });
      });
      if (conflicts.length > 0) {
        const count = conflicts.reduce((n, c) => n + Math.max(1, c.triples.length), 0);
        const words = conflicts.map((c) => (c.deletedOn ? `${c.url} was deleted on ${c.deletedOn} and changed on the other side` : `${c.url}: ${c.triples.map((t) => `${t.subject} ${t.predicate}`).join(', ')}`));
        throw new LodestoneError('Conflict', `the branch ${branch} and main changed the same triples differently (${count}); nothing was merged. Make the branch agree with main, then merge again. ${words.join('; ')}`.slice(0, 4000), { report: conflictReport(conflicts), etag: `"${head}"` });
      }
      return { intent: { changes: merged, author, message: `${this.mergeSubject(branch)}\n\nThe changes of the branch ${branch} at ${head}.\n\n${MERGED_TRAILER}: ${branch} ${head}` }, result: undefined };
    });
    if (commit !== undefined && merging !== undefined) await branches.recordMerge(branch, merging, commit, author);
    return { commit };
  }
}

/** The conflicts as RDF, beside the error resource of the 409: each conflicting triple reified, with the side that holds it. */
export function conflictReport(conflicts: readonly DocumentConflicts[]): string {
  const out: string[] = [];
  let n = 0;
  const rdf = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
  for (const c of conflicts) {
    const sides: Array<readonly [string, string]> = c.triples.flatMap((t) => [...t.ours.map((l) => [l, 'main'] as const), ...t.theirs.map((l) => [l, 'branch'] as const), ...t.base.map((l) => [l, 'merge base'] as const)]);
    if (sides.length === 0) sides.push([`<${c.url}> <${rdf}type> <${ns.dh}Item> .`, c.deletedOn ?? 'main and branch']);
    for (const [line, side] of sides) {
      const node = `_:conflict${n++}`;
      const [subject, predicate, ...rest] = line.slice(0, -2).split(' ');
      out.push(
        `${node} <${rdf}type> <${rdf}Statement> .`,
        `${node} <${rdf}subject> ${subject} .`,
        `${node} <${rdf}predicate> ${predicate} .`,
        `${node} <${rdf}object> ${rest.join(' ')} .`,
        `${node} <${ns.dct}isPartOf> <${c.url}> .`,
        `${node} <${ns.dct}source> ${JSON.stringify(side)} .`,
      );
    }
  }
  return out.join('\n') + '\n';
}
