/**
 * Who is asking, as the composition root sets it up: OpenID Connect login in each admin dataspace
 * (with the providers system.ttl declares for it, and the one session key), and the authenticator
 * over WebID-TLS (local WebID documents read from their dataspace, remote ones fetched under the
 * outgoing-address rules and read off the thread that answers requests), session cookies (a
 * session names an agent of an admin dataspace for as long as its document is there) and the
 * trusted proxy. Nothing here is mutated once built.
 */
import { OidcLogin } from './auth/oidc.js';
import { RemoteWebIds } from './auth/remote-webid.js';
import { WebIdVerifier } from './auth/webid-tls.js';
import type { ServeConfig } from './config.js';
import { Authenticator } from './http/authenticate.js';
import { runtimeFor } from './http/locate.js';
import { oidcCallbackUrl } from './http/oauth2.js';
import type { OriginTrust } from './http/origins.js';
import { QUOTAS } from './http/quotas.js';
import { safeFetch } from './net/safe-fetch.js';
import { documentIri } from './rdf/iri.js';
import type { DataspaceRuntime, OidcEndpoints } from './runtime.js';
import type { OidcProviderDeclaration } from './system-config.js';
import { RateLimit } from './util/rate-limit.js';

/** A remote WebID document larger than this is refused: a profile is a few kilobytes, and reading one is work for anyone who names it. */
const REMOTE_WEBID_BYTES = 512 * 1024;

function enabled(provider: OidcProviderDeclaration): boolean {
  return provider.clientId !== undefined && provider.clientSecret !== undefined;
}

/**
 * OpenID Connect in the admin dataspace at `adminBase`, sending browsers `home` afterwards: its
 * providers (logged, each on or off and why) and its login service, which is undefined without a
 * usable session key (`secret`).
 */
export function oidcEndpoints(config: ServeConfig, adminBase: string, home: string, providers: readonly OidcProviderDeclaration[], secret: Buffer | undefined, log: (line: string) => void): OidcEndpoints {
  const redirectUri = (name: string) => oidcCallbackUrl(adminBase, name);
  // one line for the providers declared but not begun (the default file's google and orcid), one for each other
  const untouched = providers.filter((p) => p.clientId === undefined && p.clientSecret === undefined);
  if (untouched.length) log(`OpenID Connect login: ${untouched.map((p) => p.name).join(', ')} declared without a client (off; system.ttl says how to turn one on)`);
  for (const p of providers.filter((p) => !untouched.includes(p))) {
    const missing = [p.clientId === undefined && 'lds:clientId in system.ttl', p.clientSecret === undefined && 'a:clientSecret in secrets/credentials.ttl'].filter(Boolean).join(' and ');
    log(`OpenID provider ${p.name} (${p.issuer}): ${missing ? `off until it has ${missing}` : `on, client ${p.clientId}, redirect URI ${redirectUri(p.name)}`}`);
  }
  const clients = providers.filter(enabled).map((p) => ({ name: p.name, issuer: p.issuer, clientId: p.clientId!, clientSecret: p.clientSecret! }));
  // plain-HTTP issuers only where internal addresses are allowed too (tests, private networks)
  const login = secret && new OidcLogin({ providers: clients, redirectUri, secret, allowInsecureRequests: config.allowInternalUrls });
  return { login, providers: providers.map((p) => ({ name: p.name, enabled: enabled(p) })), home, log };
}

export interface IdentityOptions {
  runtimes: readonly DataspaceRuntime[];
  /** The secretary's WebID: it may speak for others (On-Behalf-Of). */
  secretary: string;
  /** Remote RDF as N-Triples, off the thread that answers requests (net/remote-rdf.ts `toNTriples`). */
  toNTriples: (text: string, mediaType: string, base: string) => Promise<string>;
  /** The secret a trusted proxy sends and the file it is read from, when the server has trusted proxies. */
  proxySecret: { secret: string; file: string } | undefined;
  trusts: OriginTrust;
  log: (line: string) => void;
}

/** The authenticator of every request: WebID-TLS, session cookies, and the trusted proxy's word. */
export function authenticatorFor(config: ServeConfig, options: IdentityOptions): Authenticator {
  const { runtimes, log } = options;
  const local = (documentUrl: string) => {
    const runtime = runtimeFor(runtimes, documentUrl);
    return runtime && { runtime, documents: runtime.documents, relative: documentUrl.slice(runtime.dataspace.base.length) };
  };
  // WebID documents: local ones from their dataspace, others fetched under the outgoing-address rules;
  // either way read as N-Triples lines, never parsed on the thread that answers requests
  const remote = new RemoteWebIds({ fetch: (url) => safeFetch(url, { allowInternal: config.allowInternalUrls, maxBytes: REMOTE_WEBID_BYTES }), parse: options.toNTriples });
  const verifier = new WebIdVerifier({
    blobId: (url) => {
      const found = local(url);
      if (!found) return remote.blobId(url);
      try {
        return found.documents.blobId(found.relative);
      } catch {
        return undefined;
      }
    },
    read: async (url) => {
      const found = local(url);
      if (!found) {
        const document = await remote.read(url);
        if (!document) log(`remote WebID document ${url} unavailable: ${remote.failure(url) ?? 'unknown reason'}`);
        return document;
      }
      const document = await found.documents.read(found.relative).catch(() => undefined);
      return document && { blobId: document.blobId, ntriples: document.bytes }; // canonical N-Triples, as stored
    },
  }, { rate: new RateLimit(QUOTAS.verificationsPerAddress) });
  // a session names an agent of an admin dataspace for as long as its document is there (deleting it
  // ends its sessions); every login service signs sessions with the one session key
  const sessions = runtimes.find((runtime) => runtime.oidc?.login)?.oidc?.login;
  const session = sessions && ((value: string) => {
    const webId = sessions.verifySession(value);
    const found = webId === undefined ? undefined : local(documentIri(webId));
    return found && found.runtime.role === 'admin' && found.documents.blobId(found.relative) !== undefined ? webId : undefined;
  });
  if (options.proxySecret) log(`trusted proxy ${config.trustedProxies.join(', ')}: its Client-Cert is believed with Lodestone-Proxy-Secret, the text of ${options.proxySecret.file}`);
  return new Authenticator({ verifier, trustedProxies: config.trustedProxies, proxySecret: options.proxySecret?.secret, secretary: options.secretary, session, trusts: options.trusts, log });
}
