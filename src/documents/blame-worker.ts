/** A worker of the blame pool (documents/history.ts calls it): a document's blame, its blobs read here from the repository, off the thread that answers requests. */
import { catFileBatch } from '../store/cat-file.js';
import { ObjectStore } from '../store/objects.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { blame } from './blame.js';
import type { BlameWork } from './history.js';

lowerThreadPriority(5); // reading a thousand versions yields the CPU to the thread answering requests
serveCalls<BlameWork>(async (work) => {
  // git's own reader when it is installed (blame reads the versions newest first), else the objects read from here
  const batch = await catFileBatch(work.gitdir, work.versions.map((v) => v.blob!).reverse());
  if (batch) {
    try {
      return await blame(work, (id) => batch.read(id));
    } finally {
      batch.close();
    }
  }
  // read only, opened per call: packs written since are found by its rescan, and nothing is kept between calls
  const objects = new ObjectStore(work.gitdir);
  try {
    return await blame(work, (id) => objects.readTyped(id, 'blob'));
  } finally {
    await objects.close();
  }
});
