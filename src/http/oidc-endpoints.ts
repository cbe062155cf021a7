/**
 * Which OpenID Connect providers each admin dataspace offers, as the composition root registers
 * them: read by the login routes (oauth2.ts) and by the pages' login links (html.ts).
 */
import type { OidcLogin } from '../auth/oidc.js';
import type { DataspaceRuntime } from './state.js';

/** OpenID Connect in an admin dataspace (SPEC §4.7, §5.1), as the composition root sets it up. */
export interface OidcEndpoints {
  /** The login service; undefined when the session key is unusable (then every provider is off). */
  login: OidcLogin | undefined;
  /** Every declared provider, and whether it has its client id and secret. */
  providers: ReadonlyArray<{ name: string; enabled: boolean }>;
  /** Where a browser is sent after logging in or out. */
  home: string;
  log: (line: string) => void;
}

// the route table's handlers are shared by every dataspace: the login service is found by its admin runtime
export const oidcOf = new WeakMap<DataspaceRuntime, OidcEndpoints>();

export function enableOidc(admin: DataspaceRuntime, endpoints: OidcEndpoints): void {
  oidcOf.set(admin, endpoints);
}

/** The providers one can log in with at the admin dataspace `admin` (for the pages' login links). */
export function loginProviders(admin: DataspaceRuntime): string[] {
  const endpoints = oidcOf.get(admin);
  return endpoints?.login ? endpoints.providers.filter((p) => p.enabled).map((p) => p.name) : [];
}

