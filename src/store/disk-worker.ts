/** The disk worker: runs the synchronous disk operations of disk-ops.ts and stage.ts for the main thread, one at a time. */
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import * as ops from './disk-ops.js';
import type { DiskRequest } from './disk-protocol.js';
import { Stages } from './stage.js';

const stages = new Stages();

lowerThreadPriority(5); // compressing and copying packs yields to the thread answering requests
serveCalls<DiskRequest>((request) => {
  switch (request.op) {
    case 'writePack':
      return ops.writePack(request.packDir, request.tmpdir, request.objects, request.then);
    case 'mergePacks':
      return ops.mergePacks(request.packDir, request.tmpdir, request.packs);
    case 'removePacks':
      return ops.removePacks(request.packs);
    case 'updateRef':
      return ops.updateRef(request.gitdir, request.ref, request.next, request.expected, request.lock);
    case 'append':
      return ops.append(request.path, request.text);
    case 'updateStage':
      stages.update(request.gitdir, request.prefix, request.update, request.lock);
      if (request.journal) ops.removeFile(request.journal);
      return undefined;
    case 'syncWorkingFiles':
      return ops.syncWorkingFiles(request.dir, request.prefix, request.tmpdir, request.journal, request.files);
    case 'ping':
      return undefined;
    case 'syncCalls':
      return ops.syncCalls;
  }
});
