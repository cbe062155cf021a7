/**
 * The OpenID Connect providers one can log in with at an admin dataspace (its runtime's `oidc`, set
 * up by the composition root): for the login routes (oauth2.ts) and the pages' login links (html.ts).
 */
import type { DataspaceRuntime } from './state.js';

export type { OidcEndpoints } from '../runtime.js';

/** The providers one can log in with at the admin dataspace `admin` (for the pages' login links). */
export function loginProviders(admin: DataspaceRuntime): string[] {
  const endpoints = admin.oidc;
  return endpoints?.login ? endpoints.providers.filter((p) => p.enabled).map((p) => p.name) : [];
}
