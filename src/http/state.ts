/** What the middleware of one request learn and pass on (Koa's ctx.state). */
import type { Dataspace } from '../dataspace.js';
import type { DocumentService } from '../documents/document-service.js';
import type { Pusher } from '../mirror/pusher.js';
import type { AccessControl } from '../access/access-control.js';
import type { Role } from '../registry.js';

export interface DataspaceRuntime {
  dataspace: Dataspace;
  /** Whether it is an end-user dataspace or the admin dataspace of one (registry.ts). */
  role: Role;
  documents: DocumentService;
  /** Access control: the policy of the dataspace's admin (shared by a dataspace and its admin). */
  access: AccessControl;
  /** The pusher mirroring the dataspace's history, when it has a mirror. */
  mirror?: Pusher;
}

export interface State {
  /** The dataspace whose base the request URL falls under. */
  runtime: DataspaceRuntime;
  /** The request URL without its query. */
  url: string;
  /** The path relative to the dataspace base, as sent (not yet canonical). */
  relative: string;
  /** The authenticated agent's WebID, or undefined for anonymous. */
  agent: string | undefined;
}
