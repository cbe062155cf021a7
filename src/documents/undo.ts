/**
 * Undo at scale (issue 30), below HTTP: every document under a container restored as a commit or a
 * date left them, and a commit reverted across the documents it touched, each as ONE commit made
 * under the dataspace's write lock, after the request's preconditions on the container and the
 * agent's Write on every document it changes (refused as a whole, naming none). A revert is a
 * three-way reversal of sorted triple lines per document, refused with the triples a later commit
 * changed. dct:modified (SPEC §2.2) is set to the time of the undo on every document it writes.
 */
import type { PastCommits } from './past-commits.js';
import { agentIdentity, type Dataspace } from '../dataspace.js';
import { documentFile, fileDocument } from '../document-paths.js';
import { LodestoneError } from '../errors.js';
import { linesOf } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { withModified } from '../store/edit-commits.js';
import type { Change } from '../store/git-store.js';
import type { StoreView } from '../store/batch-view.js';
import { diffTrees, lookupPath, type FileDiff } from '../store/trees.js';
import { timestamp } from './metadata.js';
import type { WriteConditions } from './preconditions.js';
import type { WriteMethod } from './writes.js';

/** An xsd:dateTime as a restore's target may name it instead of a commit (seconds optional, a zone required). */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

export interface UndoRequest {
  /** The container (or document) addressed: what is undone lies in it. */
  relativePath: string;
  agent: string | undefined;
  /** The request's preconditions, judged against the addressed document under the lock. */
  conditions: WriteConditions;
  /** The writer's words, the commit message's last paragraph. */
  message?: string;
  /** Whether the agent may change the document (Write now), and read `version` (an earlier blob it is restored to) as it was. */
  mayChange: (relativePath: string, version: string | undefined) => Promise<boolean>;
}

export interface UndoResult {
  /** The commit made; undefined when nothing was to change. */
  commit: string | undefined;
  /** The documents changed. */
  changed: number;
  /** The addressed document's new blob id, when it is present after. */
  blobId: string | undefined;
}

/** What the undo needs of the history and of the current documents. */
export interface UndoContext {
  /** The commits of the branch's history, by id or by date (the same rule as a query of the past's). */
  past: PastCommits;
  url(relativePath: string): string;
  refusal(relativePath: string, method: WriteMethod): LodestoneError | undefined;
  clock: () => Date;
  /** Canonical bytes of a reverted document's N-Triples (its lines come from several versions, so its blank nodes are labelled again): in the pool that labels writes' blank nodes in a server, in process by default. */
  canonical: (ntriples: string, what: string) => Promise<Buffer>;
}

const MODIFIED = ns.dct + 'modified';

/** A file the undo writes, and the earlier version it restores, whose reading access control judges. */
type PlannedChange = Change & { version?: string };

export class Undo {
  constructor(
    private readonly dataspace: Dataspace,
    private readonly context: UndoContext,
  ) {}

  /** The commit `target` names: a commit id, or the last commit of the branch at or before an xsd:dateTime. */
  async target(target: string): Promise<string> {
    if (!DATE_TIME.test(target)) return (await this.context.past.byId(target)).commit;
    const wanted = Date.parse(target);
    if (Number.isNaN(wanted)) throw new LodestoneError('BadRequest', `"${target}" is not a date and time`);
    return (await this.context.past.byDate(new Date(wanted))).commit;
  }

  /** The files of the addressed document and of everything under it that differ between two trees. */
  private async scopeDiff(relativePath: string, before: string | undefined, after: string | undefined): Promise<FileDiff[]> {
    const { store } = this.dataspace;
    const file = documentFile(relativePath, store.prefix);
    if (relativePath === '') return diffTrees(store.trees, before, after, store.prefix); // the root holds every document
    const own = await Promise.all([before, after].map(async (tree) => (await lookupPath(store.trees, tree, file))?.id));
    const below = relativePath.endsWith('/') ? await diffTrees(store.trees, before, after, file.slice(0, -3)) : [];
    return own[0] === own[1] ? below : [{ path: file, before: own[0], after: own[1] }, ...below];
  }

  /** SPEC §9.1 at scale: every document under `relativePath` as `target` (a commit or a date) left it: one commit. */
  async restore(request: UndoRequest, target: string): Promise<UndoResult> {
    const commit = await this.target(target);
    const { store } = this.dataspace;
    const tree = (await store.objects.readCommit(commit)).tree;
    return this.commitPlan(request, `Restores ${this.context.url(request.relativePath)} and the documents under it as of ${commit}`, async (view, now) => {
      const plan: PlannedChange[] = [];
      for (const file of await this.scopeDiff(request.relativePath, tree, store.headTreeId)) {
        const current = view.blobId(file.path);
        if (current === file.before) continue;
        const bytes = file.before === undefined ? null : await store.readBlob(file.before);
        const document = fileDocument(file.path, store.prefix);
        plan.push({ path: file.path, bytes: bytes && document !== undefined ? withModified(bytes, undefined, this.context.url(document), now) : bytes, version: file.before });
      }
      return plan;
    });
  }

  /**
   * Reverts `sha` within `relativePath`: per document it touched, the triples it added are removed
   * and those it removed added back, against the current version; a triple a later commit changed
   * again refuses the whole (409, the triples named in the error's report).
   */
  async revert(request: UndoRequest, sha: string): Promise<UndoResult> {
    const { commit } = await this.context.past.byId(sha);
    const { store } = this.dataspace;
    const made = await store.objects.readCommit(commit);
    const parentTree = made.parents[0] === undefined ? undefined : (await store.objects.readCommit(made.parents[0])).tree;
    return this.commitPlan(request, `Reverts ${commit}`, async (view, now) => {
      const plan: PlannedChange[] = [];
      const conflicts: { url: string; lines: string[] }[] = [];
      const touched = new Map<string, string | undefined>();
      for (const file of await this.scopeDiff(request.relativePath, parentTree, made.tree)) {
        const document = fileDocument(file.path, store.prefix);
        const current = view.blobId(file.path);
        if (document === undefined) {
          // a file that is no document (an upload's bytes) goes back as it was, unless changed since
          if (current === file.after) plan.push({ path: file.path, bytes: file.before === undefined ? null : await store.readBlob(file.before) });
          continue;
        }
        touched.set(document, file.before);
        const url = this.context.url(document);
        const text = async (blob: string | undefined) => (blob === undefined ? [] : withoutModified(linesOf((await store.readBlob(blob)).toString('utf8')), url));
        const [before, after, now_] = await Promise.all([text(file.before), text(file.after), text(current)]);
        const [had, has] = [new Set(before), new Set(after)]; // sets: a document of 100,000 lines compared line by line would hold the thread for minutes
        const added = new Set(after.filter((line) => !had.has(line)));
        const removed = before.filter((line) => !has.has(line));
        const present = new Set(now_);
        const changedSince = [...[...added].filter((line) => !present.has(line)), ...removed.filter((line) => present.has(line))];
        const result = [...now_.filter((line) => !added.has(line)), ...removed];
        if (file.before === undefined && result.length > 0) changedSince.push(...result); // made by the commit, written to since
        if (file.after === undefined && current !== undefined) changedSince.push(...now_); // deleted by the commit, made again since
        if (changedSince.length > 0) {
          conflicts.push({ url, lines: [...new Set(changedSince)] });
          continue;
        }
        if (result.length === 0) {
          if (view.hasFilesUnder(file.path.slice(0, -3)) && !(await this.emptiedBy(file.path, parentTree, made.tree, view))) {
            conflicts.push({ url, lines: [] });
            continue;
          }
          plan.push({ path: file.path, bytes: null, version: file.before });
          continue;
        }
        const modified = `<${url}> <${MODIFIED}> "${now}"^^<${ns.xsd}dateTime> .`;
        plan.push({ path: file.path, bytes: await this.context.canonical([...result, modified].join('\n') + '\n', url), version: file.before });
      }
      if (conflicts.length > 0) {
        // the triples are told only to an agent that may change every document they are in (a refusal names none)
        for (const [document, version] of touched) if (!(await request.mayChange(document, version))) throw refusedAsAWhole(this.context.url(request.relativePath));
        throw new LodestoneError('Conflict', `later commits changed ${conflicts.reduce((n, c) => n + Math.max(c.lines.length, 1), 0)} of the triples ${commit} changed (in ${conflicts.map((c) => c.url).join(', ')}); nothing was reverted`, { report: conflictReport(conflicts) });
      }
      return plan;
    });
  }

  /** Whether every document under the container at `path` was made by the commit too (so goes with it). */
  private async emptiedBy(path: string, parentTree: string | undefined, tree: string, view: StoreView): Promise<boolean> {
    const folder = path.slice(0, -3);
    const made = await diffTrees(this.dataspace.store.trees, parentTree, tree, folder);
    return made.every((f) => f.before === undefined && view.blobId(f.path) === f.after) && made.length > 0;
  }

  /**
   * Plans under the lock and commits the plan: the addressed document's preconditions first, then
   * the agent's Write on every document changed (as a whole: a refusal names none), then the
   * built-in constraints (SPEC §7) and that every document made again has a container.
   */
  private async commitPlan(request: UndoRequest, what: string, plan: (view: StoreView, now: string) => Promise<PlannedChange[]>): Promise<UndoResult> {
    const { store } = this.dataspace;
    const file = documentFile(request.relativePath, store.prefix);
    const url = this.context.url(request.relativePath);
    const now = timestamp(this.context.clock());
    let changed = 0;
    const { commit, blobIds } = await store.transact(async (view) => {
      request.conditions.check(view.blobId(file));
      const changes = await plan(view, now);
      const documents = changes.map((c) => ({ change: c, document: fileDocument(c.path, store.prefix) })).filter((d) => d.document !== undefined);
      for (const { change, document } of documents) {
        if (!(await request.mayChange(document!, change.version))) {
          throw refusedAsAWhole(url);
        }
      }
      for (const { change, document } of documents) {
        const refused = this.context.refusal(document!, change.bytes === null ? 'DELETE' : 'PUT');
        if (refused) throw new LodestoneError('Conflict', `this would change ${this.context.url(document!)}, which cannot be changed (${refused.message}); nothing was changed`);
      }
      const present = (path: string) => {
        const planned = changes.find((c) => c.path === path);
        return planned ? planned.bytes !== null : view.blobId(path) !== undefined;
      };
      for (const { change, document } of documents) {
        if (change.bytes === null || document === '') continue;
        const parent = document!.replace(/[^/]+\/?$/, '');
        if (!present(documentFile(parent, store.prefix))) throw new LodestoneError('Conflict', `${this.context.url(document!)} would have no container (${this.context.url(parent)} is gone); nothing was changed`);
      }
      changed = documents.length;
      if (changes.length === 0) return { result: undefined };
      const author = agentIdentity(request.agent);
      const message = `POST ${url}\n\n${what}: ${documents.length} document${documents.length === 1 ? '' : 's'}.${request.message ? `\n\n${request.message}` : ''}`;
      return { intent: { changes: changes.map(({ path, bytes }) => ({ path, bytes })), author, message }, result: undefined };
    });
    return { commit, changed, blobId: (blobIds.get(file) ?? store.blobId(file)) ?? undefined };
  }
}

/** The refusal of an undo the agent may not make whole: it names no document it would change. */
function refusedAsAWhole(url: string): LodestoneError {
  return new LodestoneError('Forbidden', `this would change documents under ${url} that you may not write; nothing was changed`);
}

/** The lines without the document's dct:modified, which every write changes: no triple a person wrote. */
function withoutModified(lines: readonly string[], url: string): string[] {
  const prefix = `<${url}> <${MODIFIED}> `;
  return lines.filter((line) => !line.startsWith(prefix));
}

/** The error body's report of a refused revert: each conflicting triple reified, in the document it belongs to. */
function conflictReport(conflicts: readonly { url: string; lines: readonly string[] }[]): string {
  const out: string[] = [];
  let n = 0;
  for (const { url, lines } of conflicts) {
    for (const line of lines) {
      const [subject, predicate] = line.split(' ', 2) as [string, string];
      const object = line.slice(subject.length + predicate.length + 2, -2);
      const node = `_:conflict${n++}`;
      out.push(`${node} <${RDF_TYPE}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement> .`, `${node} <http://www.w3.org/1999/02/22-rdf-syntax-ns#subject> ${subject} .`, `${node} <http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate> ${predicate} .`, `${node} <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ${object} .`, `${node} <${ns.dct}isPartOf> <${url}> .`);
    }
  }
  return out.join('\n') + '\n';
}
