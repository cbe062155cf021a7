/** The branch a request names with `?branch=` (issue 30): the document handlers and the change request's read it here. */
import { LodestoneError } from '../errors.js';
import { isAdminDataspace } from './dataspace-role.js';
import type { Context } from './state.js';

/** The branch a request names with `?branch=` (undefined: none); 400 in an admin dataspace. */
export function branchOf(ctx: Context): string | undefined {
  const name = new URLSearchParams(ctx.querystring).get('branch');
  if (name === null) return undefined;
  if (isAdminDataspace(ctx.state.runtime)) throw new LodestoneError('BadRequest', 'the admin dataspace has no branches: agents, groups and authorizations change on it directly');
  return name;
}
