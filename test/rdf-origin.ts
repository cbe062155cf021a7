/**
 * A small origin on the loopback interface for tests that make the server fetch RDF (ontology
 * imports, packages): plain HTTP, each path answering the body and media type set for it (404
 * otherwise), counting the requests each path gets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RdfOrigin {
  /** `http://127.0.0.1:<port>/` */
  base: string;
  /** Serves `body` as `type` at `path` (relative, no leading slash), with `headers`; `undefined` removes it. */
  serve(path: string, body: string | undefined, type?: string, headers?: Record<string, string>): void;
  /** How many GETs `path` has had. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startRdfOrigin(): Promise<RdfOrigin> {
  const documents = new Map<string, { body: string; type: string; headers: Record<string, string> }>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').slice(1).replace(/\?.*$/, '');
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const found = documents.get(path);
    if (!found) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { ...found.headers, 'Content-Type': found.type }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/`,
    serve(path, body, type = 'text/turtle', headers = {}) {
      if (body === undefined) documents.delete(path);
      else documents.set(path, { body, type, headers });
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
