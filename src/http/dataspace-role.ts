/** Which kind of dataspace a request is in: the one place HTTP asks it. */
import type { DataspaceRuntime } from './state.js';

/** Whether `runtime` is an admin dataspace (agents, groups, authorizations, ontologies). */
export function isAdminDataspace(runtime: DataspaceRuntime): boolean {
  return runtime.role === 'admin';
}
