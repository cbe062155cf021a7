/**
 * RDF from elsewhere, the one way it is read: other servers' responses translated for the proxy's
 * clients, and remote WebID documents and ontology documents as the server keeps them (sorted
 * N-Triples, blank nodes labelled apart), all through rdf/translate.ts in the thread map's
 * `remoteRdf` pool, never on the thread that answers requests: its cost is bounded by the proxy's
 * 2 MiB cap, or the fetch's. The composition root builds the pool and passes this handle to the
 * proxy, identity (remote WebIDs) and the namespace ontologies.
 */
import { keptTranslation, type Translation } from '../rdf/translate.js';
import type { WorkerPool } from '../util/worker-pool.js';

/** A call of remote-rdf-worker.ts. */
export type RemoteRdfWork = { op: 'translate'; job: Translation };

export class RemoteRdf {
  constructor(private readonly pool: WorkerPool<RemoteRdfWork>) {}

  /** A response of another server in the format the proxy's client asked for (rdf/translate.ts `translate`). */
  translate(job: Translation): Promise<string> {
    return this.pool.call<string>({ op: 'translate', job });
  }

  /** RDF from elsewhere (a remote WebID document, an ontology document) as the server keeps it (rdf/translate.ts `keptTranslation`). */
  toNTriples(text: string, mediaType: string, base: string): Promise<string> {
    return this.translate(keptTranslation(text, mediaType, base));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
