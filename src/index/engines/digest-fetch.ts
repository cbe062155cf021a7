/**
 * HTTP Digest authentication (RFC 7616) for the engines that ask for it (Virtuoso's /sparql-auth
 * and /sparql-graph-crud-auth take nothing else). The credentials stay in this closure: they are
 * hashed into the Authorization header and never put in a URL, a log line or an error.
 * The last challenge is kept and reused with a growing nonce count, so a request is sent once
 * unless the server has let the nonce go stale (then once more, with the new challenge).
 */
import { createHash, randomBytes } from 'node:crypto';

export interface DigestCredentials {
  username: string;
  password: string;
}

interface Challenge {
  realm: string;
  nonce: string;
  opaque?: string;
  qop?: string;
  algorithm: string;
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** The parameters of a `WWW-Authenticate: Digest …` challenge (RFC 7616 §3.3), or undefined. */
function parseChallenge(header: string | null): Challenge | undefined {
  if (!header || !/^\s*digest\s/i.test(header)) return undefined;
  const params = new Map<string, string>();
  for (const m of header.replace(/^\s*digest\s+/i, '').matchAll(/([a-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/gi)) {
    params.set((m[1] ?? '').toLowerCase(), (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1'));
  }
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || nonce === undefined) return undefined;
  const qop = params.get('qop')?.split(',').map((q) => q.trim()).includes('auth') ? 'auth' : undefined;
  return { realm, nonce, opaque: params.get('opaque'), qop, algorithm: params.get('algorithm') ?? 'MD5' };
}

/** A fetch that answers Digest challenges with `credentials` (MD5, qop=auth: what Virtuoso offers). */
export function digestFetch(credentials: DigestCredentials): (url: URL, init: RequestInit) => Promise<Response> {
  let challenge: Challenge | undefined;
  let count = 0;
  const authorization = (method: string, url: URL, c: Challenge): string => {
    const uri = url.pathname + url.search;
    const ha1 = md5(`${credentials.username}:${c.realm}:${credentials.password}`);
    const ha2 = md5(`${method}:${uri}`);
    const nc = (++count).toString(16).padStart(8, '0');
    const cnonce = randomBytes(8).toString('hex');
    // RFC 7616 §3.4.1: with qop, the response covers the nonce count and the client nonce
    const response = c.qop ? md5(`${ha1}:${c.nonce}:${nc}:${cnonce}:${c.qop}:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
    const fields = [`username="${credentials.username}"`, `realm="${c.realm}"`, `nonce="${c.nonce}"`, `uri="${uri}"`,
      `algorithm=${c.algorithm}`, `response="${response}"`];
    if (c.opaque !== undefined) fields.push(`opaque="${c.opaque}"`);
    if (c.qop) fields.push(`qop=${c.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
    return `Digest ${fields.join(', ')}`;
  };
  return async (url, init) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const send = (c: Challenge | undefined): Promise<Response> => {
      const headers = new Headers(init.headers);
      if (c) headers.set('authorization', authorization(method, url, c));
      return fetch(url, { ...init, headers });
    };
    let response = await send(challenge);
    if (response.status !== 401) return response;
    const fresh = parseChallenge(response.headers.get('www-authenticate'));
    if (!fresh || fresh.algorithm.toUpperCase() !== 'MD5') return response;
    await response.body?.cancel();
    challenge = fresh;
    response = await send(challenge);
    return response;
  };
}
