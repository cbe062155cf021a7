/**
 * On an access request (an `lacl:AuthorizationRequest` that `admin/access/request` wrote), for an agent
 * who may write it: who asks for which modes on what, and Grant or Refuse. The script
 * (static/lodestone.js) grants by writing an authorization document into `acl/authorizations/`, as
 * one written by hand, then deletes the request; refusing deletes it. What is granted is what the
 * page shows, read from the request's own triples.
 */
import type { Quad } from '@rdfjs/types';
import { html, type Html } from './html.js';
import type { Frame } from './layout.js';

const ACL = 'http://www.w3.org/ns/auth/acl#';
const LACL = 'https://w3id.org/atomgraph/linkeddatahub/admin/acl#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
/** An http(s) IRI with none of the characters an IRIREF may not hold (RFC 3987; Turtle §6.4). */
const WEB_IRI = /^https?:\/\/[^\s<>"{}|\\^`]+$/;

export interface AccessRequest {
  agent: string;
  target: string;
  modes: string[];
}

/** The request a document holds about its `#this`, if it is one naming one agent and one document. */
export function accessRequestOf(quads: readonly Quad[], documentUrl: string): AccessRequest | undefined {
  const about = quads.filter((q) => q.subject.value === `${documentUrl}#this` && q.subject.termType === 'NamedNode');
  const objects = (p: string) => about.filter((q) => q.predicate.value === p && q.object.termType === 'NamedNode').map((q) => q.object.value);
  if (!objects(RDF_TYPE).includes(`${LACL}AuthorizationRequest`)) return undefined;
  const [agents, targets] = [objects(`${LACL}requestAgent`), objects(`${LACL}requestAccessTo`)];
  const modes = objects(`${LACL}requestMode`).filter((m) => m.startsWith(ACL)).map((m) => m.slice(ACL.length));
  if (agents.length !== 1 || targets.length !== 1 || modes.length === 0) return undefined;
  // the asker may edit its request: only plain web IRIs are offered, as written into the grant's Turtle (an IRI read from
  // `\u003E` holds a `>` that would close it and write more), and as links (never `javascript:`)
  if (![agents[0]!, targets[0]!].every((iri) => WEB_IRI.test(iri))) return undefined;
  return { agent: agents[0]!, target: targets[0]!, modes: [...new Set(modes)].sort() };
}

/** The panel; `authorizations` is the container the grant is written into. */
export function accessRequestPanel(request: AccessRequest, input: { documentUrl: string; etag?: string; authorizations: string }, t: Frame['t']): Html {
  const modes = request.modes.map((m) => t.modeNames[m] ?? m).join(', ');
  return html`<section class="grant" aria-labelledby="grant-heading"><h2 id="grant-heading">${t.grantHeading}</h2>
<p><a href="${request.agent}">${request.agent}</a> ${t.grantAsks} <strong>${modes}</strong> ${t.grantOn} <a href="${request.target}">${request.target}</a></p>
${request.modes.includes('Control') && html`<p class="warning" role="note">${t.grantControlWarning}</p>`}
<form class="grant-request" data-request="${input.documentUrl}" data-etag="${input.etag ?? ''}" data-authorizations="${input.authorizations}" data-agent="${request.agent}" data-target="${request.target}" data-modes="${request.modes.join(' ')}" data-granted="${t.granted}" data-refused="${t.refused}">
<p><button type="submit" name="op" value="grant">${t.grant}</button> <button type="submit" name="op" value="refuse" class="danger">${t.refuse}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form></section>`;
}
