/**
 * Quotas on what the requester files in an admin dataspace (issue 25, "work priced by the
 * requester"): signups per client address, access requests and other admin writes (an agent's own
 * profile and key, restores) per agent and per address. Past one, a 429 with Retry-After and the
 * RDF error body (RFC 6585 §4), before any work is done or anything is written. The owner and the
 * secretary are never limited. Built once by the composition root; memory bounded (util/rate-limit.ts).
 */
import type { IncomingMessage } from 'node:http';
import { LodestoneError } from '../errors.js';
import { RateLimit, addressKey } from '../util/rate-limit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The quotas, as a deployment lives with them: people sign up once, ask for access now and then, edit their profile a few times. */
export const QUOTAS = {
  signupsPerAddress: { limit: 5, windowMs: 10 * MINUTE },
  accessRequestsPerAgent: { limit: 20, windowMs: HOUR },
  accessRequestsPerAddress: { limit: 60, windowMs: HOUR },
  adminWritesPerAgent: { limit: 30, windowMs: 10 * MINUTE },
  adminWritesPerAddress: { limit: 120, windowMs: 10 * MINUTE },
  /** Client certificates whose WebID documents must be read (a certificate verified before costs nothing): auth/webid-tls.ts. */
  verificationsPerAddress: { limit: 60, windowMs: MINUTE },
} as const;

/** A document an agent owns because it signed up (its profile, its public key) holds at most this many bytes, canonical: a profile is a few kilobytes. */
export const AGENT_DOCUMENT_BYTES = 64 * 1024;
/** Where those documents are, relative to the admin base. */
const AGENT_DOCUMENTS = /^acl\/(?:agents|public-keys)\//;

export interface QuotasOptions {
  /** Agents never limited: the owner and the secretary. */
  exempt: readonly string[];
  now?: () => number;
}

/** How long to wait, in words, for a message. */
function inWords(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} minutes`;
}

function per(windowMs: number): string {
  return windowMs === HOUR ? 'an hour' : `${windowMs / MINUTE} minutes`;
}

const FORWARDED = Symbol('lodestone.client');
type Forwarded = IncomingMessage & { [FORWARDED]?: string };

/** Records the client a trusted proxy (one that sent the proxy secret: authenticate.ts) forwarded the request for. */
export function forwardedFor(req: IncomingMessage, address: string): void {
  (req as Forwarded)[FORWARDED] = address;
}

/** The client address of a request, as quotas count it (an IPv6 /64 is one client): the one a trusted proxy names, else the connection's. */
export function clientOf(req: IncomingMessage): string {
  return addressKey((req as Forwarded)[FORWARDED] ?? req.socket.remoteAddress);
}

export class Quotas {
  private readonly exempt: ReadonlySet<string>;
  private readonly signups: RateLimit;
  private readonly requestsByAgent: RateLimit;
  private readonly requestsByAddress: RateLimit;
  private readonly writesByAgent: RateLimit;
  private readonly writesByAddress: RateLimit;

  constructor(options: QuotasOptions) {
    this.exempt = new Set(options.exempt);
    const limit = (quota: { limit: number; windowMs: number }) => new RateLimit({ ...quota, now: options.now });
    this.signups = limit(QUOTAS.signupsPerAddress);
    this.requestsByAgent = limit(QUOTAS.accessRequestsPerAgent);
    this.requestsByAddress = limit(QUOTAS.accessRequestsPerAddress);
    this.writesByAgent = limit(QUOTAS.adminWritesPerAgent);
    this.writesByAddress = limit(QUOTAS.adminWritesPerAddress);
  }

  /** Whether `agent` is limited at all. */
  limits(agent: string | undefined): boolean {
    return agent === undefined || !this.exempt.has(agent);
  }

  /** Spends one signup of the client (signing up is anonymous); returns how to give it back when the signup did not happen. */
  signup(agent: string | undefined, client: string): () => void {
    if (!this.limits(agent)) return () => undefined;
    this.spend(this.signups, client, 'signups from this address');
    return () => this.signups.giveBack(client);
  }

  /** Spends one access request of the agent and of the client. */
  accessRequest(agent: string | undefined, client: string): void {
    if (!this.limits(agent)) return;
    this.both([this.requestsByAgent, agent, 'access requests from this agent'], [this.requestsByAddress, client, 'access requests from this address']);
  }

  /** Spends one write into an admin dataspace (a document, a restore) of the agent and of the client. */
  adminWrite(agent: string | undefined, client: string): void {
    if (!this.limits(agent)) return;
    this.both([this.writesByAgent, agent, 'writes into the admin dataspace by this agent'], [this.writesByAddress, client, 'writes into the admin dataspace from this address']);
  }

  /** The largest document `agent` may write at `relativePath` of an admin dataspace (undefined: no bound but the body limit). */
  adminDocumentBytes(agent: string | undefined, relativePath: string): number | undefined {
    return this.limits(agent) && AGENT_DOCUMENTS.test(relativePath) ? AGENT_DOCUMENT_BYTES : undefined;
  }

  /** Spends from both limits, or from neither. */
  private both(...spends: Array<[RateLimit, string | undefined, string]>): void {
    const taken: Array<[RateLimit, string]> = [];
    try {
      for (const [limit, key, what] of spends) {
        if (key === undefined) continue;
        this.spend(limit, key, what);
        taken.push([limit, key]);
      }
    } catch (error) {
      for (const [limit, key] of taken) limit.giveBack(key);
      throw error;
    }
  }

  private spend(limit: RateLimit, key: string, what: string): void {
    const waitMs = limit.take(key);
    if (waitMs === 0) return;
    throw new LodestoneError('TooManyRequests', `too many ${what}: ${limit.limit} are allowed per ${per(limit.windowMs)}; try again in ${inWords(waitMs)}`, { retryAfter: Math.ceil(waitMs / 1000) });
  }
}
