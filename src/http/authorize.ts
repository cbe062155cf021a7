/**
 * The authorization step of a request (SPEC §5, issue 4): what the request needs (GET Read, HEAD
 * any mode, POST Append, PUT/PATCH/DELETE Write; creating a document Append on its parent
 * container), what the agent may do (the Policy, or the owner's shortcut), decide. Anonymous and
 * unauthorised both answer 403 with the §2.4 body, worded from the request alone (issue 25: a
 * refusal never tells what exists). The modes held are advertised in `Link` of what is answered.
 */
import { LodestoneError } from '../errors.js';
import { modeIris, type AccessControl, type Mode } from '../access/access-control.js';
import { ns } from '../rdf/namespaces.js';

export type Need = Mode | 'Any';

/** The modes on an endpoint of the dataspace (`sparql`, …): it has no document, so no types or owners. */
export async function modesOnEndpoint(access: AccessControl, url: string, agent: string | undefined): Promise<ReadonlySet<Mode>> {
  return access.modesWith(await access.policy(), agent, { url, types: [], owners: [] });
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
