/**
 * The authorization step of every request (SPEC §5, issue 4), taken once by dispatch (routes.ts)
 * before any handler, as the Community Solid Server's AuthorizingHttpHandler does: what the route
 * row needs (a mode on a target: the document, its parent when a PUT creates it, the endpoint, the
 * root, the description of an uploaded file; by default GET Read, HEAD any mode, POST Append, PUT/PATCH/DELETE Write), what the agent
 * holds there (the Policy, or the owner's shortcut), decide. Anonymous and unauthorised both answer
 * 403 with the §2.4 body, worded from the request alone (issue 25: a refusal never tells what
 * exists). The modes held are advertised in `Link` of what is answered.
 */
import { LodestoneError } from '../errors.js';
import { modeIris, type AccessControl, type Mode } from '../access/access-control.js';
import { parentDocumentPath } from '../document-paths.js';
import { ns } from '../rdf/namespaces.js';
import { documentPathIn, proxyTarget, runtimeFor } from './locate.js';
import type { Context } from './state.js';

export type Need = Mode | 'Any';

/** The modes on an endpoint of the dataspace (`sparql`, …): it has no document, so no types or owners. */
export async function modesOnEndpoint(access: AccessControl, url: string, agent: string | undefined): Promise<ReadonlySet<Mode>> {
  return access.modesWith(await access.policy(), agent, access.withoutDocument(url));
}

export function holds(modes: ReadonlySet<Mode>, need: Need): boolean {
  return need === 'Any' ? modes.size > 0 : modes.has(need);
}

/** The 403 of a request that needs `need` on `url`: it names what was asked, never what the agent holds or what exists there. */
export function forbidden(need: Need, agent: string | undefined, url: string): LodestoneError {
  const what = need === 'Any' ? 'any access to' : `${need} access to`;
  return new LodestoneError('Forbidden', agent ? `${agent} has no ${what} ${url}` : `anonymous agents have no ${what} ${url}: authenticate with a client certificate`);
}

/** 403 unless `modes` satisfy `need`. */
export function requireMode(modes: ReadonlySet<Mode>, need: Need, agent: string | undefined, url: string): void {
  if (!holds(modes, need)) throw forbidden(need, agent, url);
}

/** The mode a method needs on an existing document. */
export function needOf(method: string): Need | undefined {
  switch (method) {
    case 'GET':
      return 'Read';
    case 'HEAD':
      return 'Any'; // SPEC §4.6.7: an agent that may only write still gets the validator
    case 'POST':
      return 'Append';
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
      return 'Write';
    default:
      return undefined;
  }
}

/** `Link` values advertising the agent and its modes (acl:agent, acl:mode). */
export function accessLinks(agent: string | undefined, modes: ReadonlySet<Mode>): string[] {
  const links = modeIris(modes).map((iri) => `<${iri}>; rel="${ns.acl}mode"`);
  if (agent) links.unshift(`<${agent}>; rel="${ns.acl}agent"`);
  return links;
}

/**
 * What a route needs, on what: `document` (the request's document; a PUT that creates it needs
 * Append on its parent container instead), `endpoint` (the request URL: `sparql`, `settings`, …,
 * which have no document, so no types or owners), `root` (the dataspace's root document),
 * `proxied` (the proxy: Read on the root to reach another origin; a URL of this dataspace is
 * answered by its own row), `upload` (an uploaded file `uploads/<sha1>`: its description
 * `uploads/<sha1>/`, whose access control is the file's), `branch` (a branch's change request: branchAccess), `nothing` (public: a script, the sitemap, a login). The mode is by
 * method unless given.
 */
export interface Needs {
  on: 'document' | 'endpoint' | 'root' | 'proxied' | 'secretary' | 'upload' | 'branch' | 'nothing';
  mode?: Need | Partial<Record<string, Need>>;
  /** The request is granted to an agent, so an anonymous one is refused whatever it holds. */
  agent?: true;
}

const NO_MODES: ReadonlySet<Mode> = new Set();

/** The decision on a request: the modes the agent holds on the target, and the document's canonical path (document rows), or a 403. */
export async function authorize(ctx: Context, needs: Needs): Promise<{ modes: ReadonlySet<Mode>; path: string }> {
  const { runtime, agent, served } = ctx.state;
  const { access, documents } = runtime;
  const method = ctx.method;
  const need = (typeof needs.mode === 'string' ? needs.mode : needs.mode?.[method]) ?? needOf(method) ?? 'Read';
  switch (needs.on) {
    case 'nothing':
      return { modes: NO_MODES, path: '' };
    case 'secretary':
      // the repositories go to replicas, which hold the secretary's certificate: no other agent, whatever it holds
      if (agent === undefined || agent !== served.secretary) throw forbidden('Read', agent, ctx.state.url);
      return { modes: NO_MODES, path: '' };
    case 'endpoint': {
      const modes = await modesOnEndpoint(access, ctx.state.url, agent);
      requireMode(modes, need, agent, ctx.state.url);
      if (needs.agent && !agent) throw new LodestoneError('Forbidden', `authenticate to use ${ctx.state.url}: it answers an agent`);
      return { modes, path: '' };
    }
    case 'proxied':
      if (proxiesHere(ctx)) return { modes: NO_MODES, path: '' };
    // falls through: another origin is reached through the dataspace, by those who may read it
    case 'root': {
      const modes = await access.modesOn(runtime, '', agent);
      requireMode(modes, needs.on === 'proxied' ? 'Read' : need, agent, documents.base);
      return { modes, path: '' };
    }
    case 'upload': {
      const path = ctx.state.relative + '/'; // the row's pattern takes `uploads/<sha1>` only
      const modes = await access.modesOn(runtime, path, agent);
      requireMode(modes, need, agent, ctx.state.url);
      return { modes, path };
    }
    case 'branch':
      return { modes: await branchAccess(ctx, need === 'Any' ? 'Read' : need), path: '' };
    case 'document': {
      const path = documentPathIn(served.runtimes, runtime, ctx.state.relative);
      const modes = await access.modesOn(runtime, path, agent);
      // SPEC §5: only a PUT creates; a POST to a missing document needs Append on it, as on any, and is then a 404
      const parent = method === 'PUT' && documents.blobId(path) === undefined ? parentDocumentPath(path) : undefined;
      // issue 25: the refusal names the mode needed on the document itself, never the parent, whether or not it exists
      const allowed = parent !== undefined ? holds(await access.modesOn(runtime, parent, agent), 'Append') : holds(modes, need);
      if (!allowed) throw forbidden(need, agent, documents.url(path));
      return { modes, path };
    }
  }
}

/**
 * A branch's change request (issue 30). Reading it needs Read on at least one document the branch
 * changed (only those are listed); merging or discarding it, Write on every one (a merge changes
 * them on main: the same access control as writing them there). A branch that does not exist, or
 * shows the agent nothing, is refused as one the agent may not see when it may not read (write) the
 * root either, else 404: so a refusal says nothing of which branches exist to those outside, and
 * the root's readers (writers) learn only that a branch of that name exists.
 */
async function branchAccess(ctx: Context, need: Mode): Promise<ReadonlySet<Mode>> {
  const { runtime, agent } = ctx.state;
  const { access, documents } = runtime;
  const name = new URLSearchParams(ctx.querystring).get('branch') ?? '';
  const url = `${documents.base}?branch=${encodeURIComponent(name)}&changes`;
  const rootModes = await access.modesOn(runtime, '', agent);
  const changed = await documents.changeRequests.changed(name).catch((error: unknown) => {
    if (holds(rootModes, need)) throw error; // a bad name is a 400 to those who may act on the dataspace
    return undefined;
  });
  const held = await Promise.all((changed?.documents ?? []).map(async (d) => holds(await access.modesOn(runtime, d.relativePath, agent), need)));
  if (held.length > 0 && (need === 'Read' ? held.some(Boolean) : held.every(Boolean))) return rootModes;
  if (held.length === 0 || need === 'Read') {
    if (holds(rootModes, need)) throw new LodestoneError('NotFound', `there is no branch ${name.slice(0, 64)} with changes you may ${need === 'Read' ? 'see' : 'merge'}`);
  }
  throw forbidden(need, agent, url);
}

/** Whether a proxy request names a URL of its own dataspace (or none that parses: the proxy answers 400). */
function proxiesHere(ctx: Context): boolean {
  let target: URL;
  try {
    target = proxyTarget(ctx.querystring);
  } catch {
    return true; // the proxy answers 400, asking nothing of any origin
  }
  return runtimeFor(ctx.state.served.runtimes, target.href) === ctx.state.runtime;
}
