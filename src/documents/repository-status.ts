/**
 * How a dataspace's repository and index stand (issue 29's status resource, http/status.ts): the
 * branch and its HEAD with the commit's time, the commit the index reflects and the index's kind,
 * the documents at HEAD (files in the tree, counted without reading one) and the triples indexed.
 */
import type { Dataspace } from '../dataspace.js';

export interface RepositoryStatus {
  branch: string;
  /** The branch's last commit (null: nothing written yet), and when it was made. */
  head: string | null;
  headTime: string | null;
  index: { kind: string; commit: string | null; current: boolean };
  documents: number;
  triples: number;
}

export async function repositoryStatus(dataspace: Dataspace): Promise<RepositoryStatus> {
  const { store, index } = dataspace;
  const head = store.head ?? null;
  const commit = head ? await store.objects.readCommit(head) : undefined;
  const indexed = index.indexedCommit ?? null;
  let documents = 0;
  for (const path of store.listFiles().keys()) if (path.endsWith('.nt')) documents++;
  return {
    branch: store.branch,
    head,
    headTime: commit ? new Date(commit.committer.timestamp * 1000).toISOString() : null,
    index: { kind: index.kind, commit: indexed, current: indexed === head },
    documents,
    triples: await index.size(),
  };
}
