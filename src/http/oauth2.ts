/**
 * OpenID Connect for browsers in the admin dataspace (SPEC §4.7, §5.1): `oauth2/login/<provider>`
 * (302 to the provider), `oauth2/authorize/<provider>` (the callback: finds or creates the
 * account's agent, starts the session, 302 home) and `oauth2/logout` (POST only, 303 home), open to
 * anyone (they are how one stops being anonymous). No code, token or secret reaches a log line or an error message.
 */
import { TURTLE } from '../rdf/media-types.js';
import { emptyBody } from './body.js';
import type Koa from 'koa';
import { accountAgent, readCookie, serializeCookie, SESSION_COOKIE, type OidcClaims, type OidcLogin } from '../auth/oidc.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { createOnly } from '../documents/preconditions.js';
import { sendError } from './error-middleware.js';
import { toHttpError } from './http-error.js';
import type { OidcEndpoints } from './oidc-endpoints.js';
import type { Context, Decided, DataspaceRuntime } from './state.js';

/** The redirect URI to register with provider `name`. */
export function oidcCallbackUrl(adminBase: string, name: string): string {
  return `${adminBase}oauth2/authorize/${name}`;
}

function redirect(ctx: Koa.Context, location: string, status = 302): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Location', location);
  emptyBody(ctx);
}

/** The login service of provider `name`, or a 404 that says what to configure. */
function loginWith(runtime: DataspaceRuntime, name: string): { endpoints: OidcEndpoints; login: OidcLogin } {
  const endpoints = runtime.oidc;
  const declared = endpoints?.providers.find((p) => p.name === name);
  if (!endpoints || !declared) {
    throw new LodestoneError('NotFound', `there is no OpenID provider named ${name.slice(0, 64)}; declared: ${endpoints?.providers.map((p) => p.name).join(', ') || 'none'} (lds:oidcProvider in system.ttl)`);
  }
  if (!declared.enabled) {
    throw new LodestoneError('NotFound', `the OpenID provider ${name} is not configured: register a client with it whose redirect URI is ${oidcCallbackUrl(runtime.documents.base, name)}, give the provider lds:clientId in system.ttl and a:clientSecret in secrets/credentials.ttl (mode 0600), and restart`);
  }
  if (!endpoints.login) throw new LodestoneError('NotFound', 'OpenID Connect login is off: the session key in secrets/session.key is unusable (the server log says why)');
  return { endpoints, login: endpoints.login };
}

/** A failure to reach the provider (discovery) as a 502; refusals pass as they are. */
function unreachable(error: unknown): never {
  if (error instanceof LodestoneError) throw error;
  throw new LodestoneError('BadGateway', error instanceof Error ? error.message : 'the OpenID provider could not be reached');
}

export async function oidcLogin(ctx: Context, { captured: [name = ''] }: Decided): Promise<void> {
  const { login } = loginWith(ctx.state.runtime, name);
  const started = await login.login(name).catch(unreachable);
  ctx.append('Set-Cookie', serializeCookie(started.cookie));
  redirect(ctx, started.location);
}

export async function oidcCallback(ctx: Context, { captured: [name = ''] }: Decided): Promise<void> {
  const { endpoints, login } = loginWith(ctx.state.runtime, name);
  const ended = serializeCookie(login.endLogin(name)); // the login cookie goes, whatever the outcome
  try {
    const claims = await login.callback(name, ctx.url, readCookie(ctx.get('Cookie'), login.loginCookieName(name))).catch(unreachable);
    const webId = await agentOfAccount(ctx.state.runtime, claims, endpoints.log, ctx.state.served.outbound.secretary?.webId);
    ctx.append('Set-Cookie', [ended, serializeCookie(login.session(webId))]);
    redirect(ctx, endpoints.home);
  } catch (error) {
    // Answered here rather than by the error middleware, which drops Set-Cookie and would log the query (the code).
    const http = toHttpError(error);
    if (http.status >= 500) endpoints.log(`${ctx.method} ${ctx.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await sendError(ctx, http.status, http.message, { ...http.headers, 'Set-Cookie': ended, 'Cache-Control': 'no-store' });
  }
}

/** The agent of an account: the document at the account's path (oidc.ts, accountAgent), else a new one that owns itself. */
async function agentOfAccount(admin: DataspaceRuntime, claims: OidcClaims, log: (line: string) => void, secretary: string | undefined): Promise<string> {
  const agent = accountAgent(claims, admin.documents.base, secretary); // delegates to the secretary, as the owner does (the proxy)
  if (admin.documents.blobId(agent.agentPath) !== undefined) return agent.webId;
  try {
    await admin.documents.write({
      method: 'PUT',
      relativePath: agent.agentPath,
      agent: agent.webId,
      body: { text: agent.agentTurtle, mediaType: TURTLE },
      conditions: createOnly, // a concurrent login of the same account may make it first
    });
    log(`${agent.webId}: a new agent, for an account with the OpenID provider ${claims.provider}`);
  } catch (error) {
    if (!isLodestoneError(error, 'PreconditionFailed')) throw error;
  }
  return agent.webId;
}

/** Ends the session: the cookie is cleared in the browser and refused by this server until it expires. */
export async function oidcLogout(ctx: Context): Promise<void> {
  const endpoints = ctx.state.runtime.oidc;
  if (endpoints?.login) ctx.append('Set-Cookie', serializeCookie(endpoints.login.logout(readCookie(ctx.get('Cookie'), SESSION_COOKIE))));
  redirect(ctx, endpoints?.home ?? ctx.state.runtime.documents.base, 303); // RFC 9110 §15.4.4: after a POST, GET the target
}
