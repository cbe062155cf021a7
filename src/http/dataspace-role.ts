/** Which kind of dataspace a request is in: the one place HTTP asks it. */
import type { DataspaceRuntime } from './state.js';

/** Whether `runtime` is an admin dataspace (agents, groups, authorizations, ontologies). */
export function isAdminDataspace(runtime: DataspaceRuntime): boolean {
  return runtime.role === 'admin';
}

/** The admin dataspace of `runtime`'s pair (itself when it is one): agents, login and signup live there. */
export function adminOf(runtimes: readonly DataspaceRuntime[], runtime: DataspaceRuntime): DataspaceRuntime {
  if (isAdminDataspace(runtime)) return runtime;
  return runtimes.find((r) => isAdminDataspace(r) && r.access === runtime.access) ?? runtime;
}
