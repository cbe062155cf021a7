/** A worker of the branches pool (documents/change-requests.ts calls it): a change request's diffs and three-way merges, their blobs read here from the repository, off the thread that answers requests. */
import { withBlobReader } from '../store/cat-file.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { blobsToRead, branchWork } from './branch-work.js';
import type { BranchWork } from './change-requests.js';

lowerThreadPriority(5); // a merge of large documents yields the CPU to the thread answering requests
serveCalls<BranchWork>((work) => withBlobReader(work.gitdir, blobsToRead(work), (read) => branchWork(work, read)));
