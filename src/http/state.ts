/** What the middleware of one request learn and pass on (Koa's ctx.state). */
import type { IssueCredentials } from '../auth/signup.js';
import type { Outbound } from '../proxy/outbound.js';
import type { RemoteRdf } from '../net/remote-rdf.js';
import type { DataspaceRuntime } from '../runtime.js';
import type { Mode } from '../access/access-control.js';
import type { SystemSettings } from '../settings.js';
import type { OriginTrust } from './origins.js';
import type { PageDrawer } from './page-drawer.js';
import type { ReadCaches } from './read-caches.js';
import type { QueryShapes } from './query-shapes.js';
import type { Quotas } from './quotas.js';
import type { Etags, RepresentationCache } from './representations.js';
import type { UploadReader } from './upload-reader.js';
import type { SettingsUpdates } from './settings-updates.js';
import type { Readable } from 'node:stream';

export type { DataspaceRuntime } from '../runtime.js';

/** Every answer of a dataspace names the commit it reflects (issue 29); a request may ask for at least one. */
export const COMMIT_HEADER = 'Lodestone-Commit';
export const MIN_COMMIT_HEADER = 'Lodestone-Min-Commit';

/** A read replica, as the HTTP layer sees it (replica/replica.ts). */
export interface ReplicaView {
  /** The primary's URL for a URL of this replica. */
  primaryUrl(url: string): string;
  /** Whether the dataspace at `base` holds `commit`, waiting a little for it. */
  reached(base: string, commit: string): Promise<boolean>;
  status(base: string): { primary: string; primaryHead: string | null; heardAt: string | null; caughtUp: boolean; lagSeconds: number | null; lagCommits: number | null; rounds: { packed: number; fetched: number } } | undefined;
}

/** What every request of one server shares: its dataspaces and settings (built once by createApp). */
export interface Served {
  runtimes: readonly DataspaceRuntime[];
  representations: RepresentationCache;
  /** The server's ETags, keyed with its secret (representations.ts). */
  etags: Etags;
  bodyLimit: number;
  /** The largest uploaded file, in bytes (413 past it). */
  uploadLimit: number;
  /** An upload's body read to its file, off the thread that answers requests (upload-reader.ts). */
  uploads: Pick<UploadReader, 'read'>;
  sparqlTimeoutMs: number;
  /** Queries' shapes, parsed off the thread that answers requests, with a deadline (query-shapes.ts). */
  queryShapes: Pick<QueryShapes, 'of'>;
  /** The proxy's way out: guarded requests, the secretary's credentials, the cache (proxy/outbound.ts). */
  outbound: Outbound;
  /** Responses of other servers in the format the client asked for, made off the thread that answers requests (net/remote-rdf.ts). */
  remoteRdf: Pick<RemoteRdf, 'translate'>;
  /** The updates of settings PATCHes, run off the thread that answers requests (settings-updates.ts). */
  settingsUpdates: Pick<SettingsUpdates, 'run'>;
  /** The dataspaces' settings in the system configuration (undefined: `settings` answers 404). */
  settings?: SystemSettings;
  /** Where pages are drawn (kept once drawn, large ones off the thread that answers requests). */
  pages: PageDrawer;
  /** What requesters may file in admin dataspaces (signups, access requests, writes) before a 429. */
  quotas: Quotas;
  /** A signup's key, certificate and PKCS#12 file, made off the thread that answers requests (auth/signup-workers.ts). */
  signupCredentials: IssueCredentials;
  /** The origins each dataspace trusts with its visitors' credentials (origins.ts). */
  trusts: OriginTrust;
  /** What the read routes keep between requests: mementos, TimeMaps, SPARQL answers and query shapes (read-caches.ts). */
  caches: ReadCaches;
  /** The server's own agent, whose certificate replicas hold: the one agent the repositories are served to (git-http.ts). */
  secretary: string | undefined;
  /** Packs of the repositories made for replicas, a few at a time (store/upload-pack.ts). */
  uploadPack: {
    advertise(gitdir: string, protocol: string | undefined): Promise<Buffer>;
    pack(gitdir: string, protocol: string | undefined, request: Readable): Promise<Readable>;
  };
  /** Set on a read replica: writes go to its primary, reads may wait for a commit. */
  replica?: ReplicaView;
  /** Answers a request from the route table (routes.ts `route`); false when no row takes it. The proxy's URLs of its own dataspace go through it as new requests. */
  route: (ctx: Context) => Promise<boolean>;
}

export interface State {
  served: Served;
  /** The dataspace whose base the request URL falls under. */
  runtime: DataspaceRuntime;
  /** The request URL without its query. */
  url: string;
  /** The path relative to the dataspace base, as sent (not yet canonical). */
  relative: string;
  /** The authenticated agent's WebID, or undefined for anonymous. */
  agent: string | undefined;
  /** Set on the request the proxy makes of a URL of its own dataspace (SPEC §4.5.2), which is not proxied again. */
  proxied?: true;
  /** The commit the answer reflects (`Lodestone-Commit`), asked once it is made; set by the route (routes.ts), none: it names none. */
  reflects?: () => string | undefined;
}

/** The context of a request inside a route (Koa's, with this state). */
export type Context = import('koa').ParameterizedContext<State>;
/** What a read answers, as a value: `send` (reply.ts) judges its preconditions and sends it. */
export interface Reply {
  /** 200 unless said. */
  status?: number;
  headers?: Record<string, string>;
  /** The Content-Type of the body (sent with a 200, not with a 304 or an error). */
  contentType?: string;
  /** The strong ETag of what is sent: preconditions are judged against it. */
  etag?: string;
  /** The ETags of the other representations of the same version, by media type (to say why an If-Match failed). */
  others?: () => ReadonlyMap<string, string>;
  /** The body, made only when one is sent. */
  body?: () => Promise<Buffer | string> | Buffer | string;
}

/** What dispatch decided of a request before its handler (routes.ts): the row's authorization and negotiation. */
export interface Decided {
  /** What the row's path pattern captured. */
  captured: readonly string[];
  /** The modes the agent holds on the row's target (none for a public row). */
  modes: ReadonlySet<Mode>;
  /** The canonical path of the request's document (document rows), else ''. */
  path: string;
  /** The media type negotiated from the row's offer; undefined when nothing offered is acceptable (a write, a query's answer). */
  type: string | undefined;
  /** The Accept negotiated with (`?accept=` or the header), for a handler that narrows the offer once it knows more (offers.ts). */
  accept: string | undefined;
}

/** A route's handler: the request and what dispatch decided; it returns the reply to send (reply.ts), or answers itself. */
export type Handler = (ctx: Context, decided: Decided) => Promise<Reply | void>;
