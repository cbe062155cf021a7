/** A worker of the blame pool (documents/history.ts calls it): a document's blame, its blobs read here from the repository, off the thread that answers requests. */
import { withBlobReader } from '../store/cat-file.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { blame } from './blame.js';
import type { BlameWork } from './history.js';

lowerThreadPriority(5); // reading a thousand versions yields the CPU to the thread answering requests
// blame reads the versions newest first
serveCalls<BlameWork>((work) => withBlobReader(work.gitdir, work.versions.map((v) => v.blob!).reverse(), (read) => blame(work, read)));
