/**
 * The composition root of `lodestone serve`: opens every dataspace (repository, index, working
 * tree, watcher), builds the HTTP app and listens. Nothing else wires parts together.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { ServeConfig } from './config.js';
import { Dataspace } from './dataspace.js';
import { createApp } from './http/app.js';

export interface DataspaceSpec {
  id: string;
  base: string;
}

/** The default instance: an end-user dataspace at the base URL and its admin dataspace under it. */
export function defaultDataspaces(base: string): DataspaceSpec[] {
  return [
    { id: 'end-user', base },
    { id: 'admin', base: new URL('admin/', base).href },
  ];
}

export function dataspaceDir(data: string, id: string): string {
  return join(data, 'dataspaces', id);
}

export interface Running {
  server: Server;
  dataspaces: Dataspace[];
  close(): Promise<void>;
}

export async function serve(config: ServeConfig, log: (line: string) => void = (l) => console.log(l)): Promise<Running> {
  const dataspaces: Dataspace[] = [];
  for (const spec of defaultDataspaces(config.base)) {
    const started = Date.now();
    const ds = await Dataspace.open({ ...spec, dir: dataspaceDir(config.data, spec.id), watch: config.watch, log });
    dataspaces.push(ds);
    log(`${spec.id}: ${ds.base} from ${ds.store.dir} at ${ds.store.head ?? 'an empty branch'} (${ds.store.listFiles().size} documents, ${Date.now() - started} ms)`);
  }
  const app = createApp(dataspaces, new URL(config.base).origin);
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  log(`listening on ${config.base}`);
  return {
    server,
    dataspaces,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const ds of dataspaces) await ds.close();
    },
  };
}
