/**
 * The history section's part for branches (issue 30): a dataspace of N documents, a branch that
 * changes every one of them (one commit each), main moving meanwhile (a tenth of the documents
 * changed there too, on another predicate, so their merge is a real three-way one); then the
 * change request's diff (merge base, tree diff, every document's triples) and the merge (one
 * commit on main, recorded on the branch), each timed, against git's own `git merge-tree --write-tree` of the same two heads.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Dataspace, agentIdentity } from '../src/dataspace.js';
import { ChangeRequests } from '../src/documents/change-requests.js';
import { ms, num, ratio, type BenchContext, type Row } from './table.js';

const run = promisify(execFile);
const BASE = 'https://localhost/';
const line = (i: number, predicate: string, value: string) => `<${BASE}d${i}/#this> <http://purl.org/dc/terms/${predicate}> "${value}" .\n`;
const file = (i: number) => `graphs/d${i}.nt`;

export async function branchRows(context: BenchContext): Promise<Row[]> {
  const n = context.quick ? 100 : 1000;
  const dir = join(context.tmp, 'branches');
  const dataspace = await Dataspace.open({ id: 'branches', base: BASE, dir, log: () => undefined });
  const author = agentIdentity('https://localhost/admin/acl/agents/bench/#this');
  try {
    const { store, branches } = dataspace;
    await store.write({ changes: Array.from({ length: n }, (_, i) => ({ path: file(i), bytes: Buffer.from(line(i, 'title', `main ${i}`)) })), author, message: 'PUT seed' });
    let started = performance.now();
    for (let i = 0; i < n; i++) {
      await branches.transact('bench', async () => ({ intent: { changes: [{ path: file(i), bytes: Buffer.from(line(i, 'title', `branch ${i}`)) }], author, message: `PUT ${BASE}d${i}/` }, result: undefined }));
    }
    const writeMs = performance.now() - started;
    context.log(`branches: ${n} commits on a branch in ${ms(writeMs)}`);
    for (let i = 0; i < n; i += 10) {
      await store.write({ changes: [{ path: file(i), bytes: Buffer.from(line(i, 'title', `main ${i}`) + line(i, 'description', `on main ${i}`)) }], author, message: `PATCH ${BASE}d${i}/` });
    }
    const requests = new ChangeRequests(dataspace);
    started = performance.now();
    const changed = (await requests.changed('bench'))!;
    const diff = await requests.diff(changed.documents);
    const diffMs = performance.now() - started;
    const lines = diff.reduce((sum, d) => sum + d.removed.length + d.added.length, 0);
    started = performance.now();
    // git merges lines, not triples: adjacent lines changed on both sides are a conflict to it (exit 1)
    const gitOut = await run('git', ['--git-dir', store.gitdir, 'merge-tree', '--write-tree', 'main', 'bench']).catch((error: { code?: number; stdout?: string }) => {
      if (error.code !== 1) throw error;
      return { stdout: error.stdout ?? '' };
    });
    const gitMs = performance.now() - started;
    const gitConflicts = (gitOut.stdout.match(/^CONFLICT/gm) ?? []).length;
    const before = store.head;
    started = performance.now();
    const { commit } = await requests.merge('bench', changed.head, author.name);
    const mergeMs = performance.now() - started;
    // one commit on main (one parent: main's history is a first-parent chain), and the branch's own merge commit recording it
    const recorded = await branches.head('bench');
    if (!commit || (await store.objects.readCommit(commit)).parents.join() !== before || !recorded || (await store.objects.readCommit(recorded)).parents.join() !== `${changed.head},${commit}`) throw new Error('branches: the merge made no commit on main, or the branch did not record it');
    const size = `${num(n)} documents`;
    return [
      { section: 'history', measure: `branch: a write on a branch (${size}, one commit each)`, value: ms(writeMs / n) },
      { section: 'history', measure: `branch: diff of a branch of ${size} (${num(lines)} lines)`, value: ms(diffMs), baseline: `git merge-tree ${ms(gitMs)}`, ratio: ratio(diffMs / gitMs) },
      { section: 'history', measure: `branch: merge of a branch of ${size} (${num(n / 10)} changed on main too)`, value: `${ms(mergeMs)}, no conflict`, baseline: `git merge-tree ${ms(gitMs)}, ${num(gitConflicts)} conflicts`, ratio: ratio(mergeMs / gitMs) },
    ];
  } finally {
    await dataspace.close();
  }
}
