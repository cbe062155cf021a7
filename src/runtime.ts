/** One served dataspace as the composition root assembles it: its storage, the document service over it, its access control, its mirror and its namespace ontology. */
import type { AccessControl } from './access/access-control.js';
import type { OidcLogin } from './auth/oidc.js';
import type { Dataspace } from './dataspace.js';
import type { DocumentService } from './documents/document-service.js';
import type { Pusher } from './mirror/pusher.js';
import type { NamespaceOntology } from './ontology/namespace.js';
import type { DataspaceLabels } from './pages/labels.js';
import type { Role } from './registry.js';

export interface DataspaceRuntime {
  /** The storage, for the composition root, tools and tests; the HTTP layer goes through `documents`. */
  dataspace: Dataspace;
  /** Whether it is an end-user dataspace or the admin dataspace of one (registry.ts). */
  role: Role;
  documents: DocumentService;
  /** Access control: the policy of the dataspace's admin (shared by a dataspace and its admin). */
  access: AccessControl;
  /** The pusher mirroring the dataspace's history, when it has a mirror. */
  mirror?: Pusher;
  /** The namespace ontology of the dataspace's pair (`ns`, packages, SHACL constraints; shared by a dataspace and its admin). */
  ontology?: NamespaceOntology;
  /** The labels its pages use (shared by a dataspace and its admin: their namespace ontology's and the shipped vocabularies'). */
  labels: DataspaceLabels;
  /** OpenID Connect login, in an admin dataspace (SPEC §4.7, §5.1). */
  oidc?: OidcEndpoints;
}

/** OpenID Connect in an admin dataspace, as the composition root sets it up. */
export interface OidcEndpoints {
  /** The login service; undefined when the session key is unusable (then every provider is off). */
  login: OidcLogin | undefined;
  /** Every declared provider, and whether it has its client id and secret. */
  providers: ReadonlyArray<{ name: string; enabled: boolean }>;
  /** Where a browser is sent after logging in or out. */
  home: string;
  log: (line: string) => void;
}
