/**
 * `<base>settings` (SPEC §4.7): GET and HEAD answer the dataspace's description in the system
 * configuration in any RDF format (graph-reply.ts); PATCH edits it with one SPARQL update of the
 * forms document PATCH takes (SPEC §4.2), run off the thread that answers requests, with the
 * dataspace as the base IRI (`<>` is the dataspace). Only end-user dataspaces are edited (an admin
 * dataspace's settings answer 422); the edit is checked (settings.ts), packages it imports or drops
 * are installed or removed (packages.ts) before the file is written, and the namespace ontologies
 * are cleared, so the change is seen by the next request. `If-Match`, when sent, must hold the
 * current ETag of the representation the request's Accept selects, judged as the edit runs (edits
 * run one at a time): of several PATCHes quoting one ETag, one wins.
 */
import { HTML, SPARQL_UPDATE } from '../rdf/media-types.js';
import { LodestoneError } from '../errors.js';
import { canonicalNTriples } from '../rdf/canonical.js';
import { parseRdf, tripleLine } from '../rdf/ntriples.js';
import { boundNesting } from '../rdf/sparql-text.js';
import { installPackage, removePackage } from '../ontology/packages.js';
import { importsOf } from '../settings.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { isAdminDataspace } from './dataspace-role.js';
import { contentVersion, graphReply, graphTag } from './graph-reply.js';
import { systemGraphPage } from './document-pages.js';
import { conditionsOf, mismatch } from '../documents/preconditions.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';
import type { Quad } from '@rdfjs/types';

/** GET, HEAD and PATCH of `<base>settings`: the route table's handler. */
export async function settings(ctx: Context, { type }: Decided): Promise<Reply | void> {
  const { runtime, agent, served } = ctx.state;
  const base = runtime.documents.base;
  const url = base + 'settings';
  const store = served.settings;
  if (!store) throw new LodestoneError('NotFound', `${url}: this server has no system configuration`);
  const current = await canonicalNTriples(await store.description(base));
  const version = contentVersion('settings', current);
  if (ctx.method !== 'PATCH') return type === HTML ? systemGraphPage(ctx, url, current) : graphReply(ctx, url, version, current, type!);

  if (isAdminDataspace(runtime)) throw new LodestoneError('ConstraintViolation', `the settings of an admin dataspace cannot be edited (SPEC §4.7); edit those of its end-user dataspace`);
  if (mediaTypeOf(ctx) !== SPARQL_UPDATE) throw new LodestoneError('UnsupportedMediaType', `send one SPARQL update as ${SPARQL_UPDATE}`);
  const update = decodeUtf8(await readBody(ctx.req, served.bodyLimit));
  boundNesting(update, 'the update', 'InvalidUpdate');
  const { ifMatch } = conditionsOf(ctx.headers);
  // judged against the description the edit changes, where edits run one at a time: of several quoting one ETag, one wins
  const judged = async (before: Quad[]) => {
    if (!ifMatch) return;
    const tag = graphTag(ctx, url, contentVersion('settings', await canonicalNTriples(before)), type);
    if (!ifMatch.some((t) => t === '*' || t === tag)) throw new LodestoneError('PreconditionFailed', mismatch(ifMatch, undefined), { etag: tag });
  };
  const admin = served.runtimes.find((r) => r.access === runtime.access && isAdminDataspace(r))?.documents;
  const ontology = runtime.ontology;
  const edit = await store.update(
    base,
    // the description goes to the update with the file's own blank-node labels, so the triples it keeps are known as such
    async (before) => {
      await judged(before);
      return parseRdf(await served.settingsUpdates.run(before.map(tripleLine).join('\n'), update, base), { keepBlankNodeLabels: true });
    },
    // packages imported now are fetched and materialised before the file says so (422 when one cannot be loaded)
    async (before, after) => {
      const added = importsOf(after, base).filter((p) => !importsOf(before, base).includes(p));
      if (added.length && (!admin || !ontology)) throw new LodestoneError('ConstraintViolation', `${base} has no admin dataspace to keep packages in`);
      for (const pkg of added) await installPackage(ontology!, admin!, pkg, agent);
    },
  );
  if (admin) for (const pkg of importsOf(edit.before, base).filter((p) => !importsOf(edit.after, base).includes(p))) await removePackage(admin, pkg, agent);
  await ontology?.clear(); // as admin/clear does: the next request sees the ontology of the new settings
  runtime.access.refresh(); // and access control the class hierarchy of the packages imported now
  const after = await canonicalNTriples(await store.description(base));
  ctx.status = 204;
  ctx.set('ETag', graphTag(ctx, url, contentVersion('settings', after), type));
  emptyBody(ctx);
}
