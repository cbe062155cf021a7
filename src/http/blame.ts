/**
 * `?blame` on a document (issue 30): each triple of its current version with the commit that
 * brought it, its time and its author, as a reified graph in every RDF format a document is
 * served in (documents/blame.ts, computed in the blame pool) or as a page. Read like the TimeMap:
 * Read on the document, decided by dispatch; what the asker may not see of it (viewOf) is left
 * out. Its validator is the versions it is made from, the view and the type.
 */
import { LodestoneError } from '../errors.js';
import { HTML } from '../rdf/formats.js';
import type { BlameResult } from '../documents/blame.js';
import { labelOf } from '../pages/labels.js';
import { lineTerms } from '../rdf/canonical-lines.js';
import { blamePage } from '../pages/blame-page.js';
import { hiddenIn } from './document-read.js';
import { frameOf, namesOf, sendPage } from './html.js';
import { historyOf } from './memento.js';
import { contentTypeOf } from './representations.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';

/** A page shows this many triples at most (as a document's page does): the RDF has them all. */
const ROWS_PER_PAGE = 3_000;

export async function blame(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { relativePath, documentUrl, history, variant } = historyOf(ctx, decided);
  const versions = await history.blameVersions(relativePath);
  if (versions.length === 0) throw new LodestoneError('NotFound', `${documentUrl} does not exist now: it has nothing to blame (its versions are at ${documentUrl}?timemap)`);
  const hidden = hiddenIn(variant);
  const { blames } = ctx.state.served.caches;
  // the versions it is made from: a newest version names its whole first-parent history
  const key = `${documentUrl}\n${versions[versions.length - 1]!.commit}\n${versions.length}\n${variant}`;
  const type = decided.type;
  if (type === HTML) {
    let made = blames.get(key);
    if (!made) blames.put(key, (made = Buffer.from(JSON.stringify(await history.blame(relativePath, versions, hidden, undefined)))));
    const { lines, origins } = JSON.parse(made.toString('utf8')) as BlameResult;
    return blameHtml(ctx, documentUrl, lines.slice(0, ROWS_PER_PAGE).map((line, i) => ({ line, ...versions[origins[i]!]! })), lines.length);
  }
  if (type === undefined) return; // dispatch answers 406, now that 404 had its turn
  const body = async () => {
    let made = blames.get(`${key}\n${type}`);
    if (!made) blames.put(`${key}\n${type}`, (made = Buffer.from((await history.blame(relativePath, versions, hidden, type)).body!, 'utf8')));
    return made;
  };
  return { headers: { Link: `<${documentUrl}>; rel="original", <${documentUrl}?timemap>; rel="timemap"` }, contentType: contentTypeOf(type), etag: ctx.state.served.etags.of(`${documentUrl}?blame`, key, type), body };
}

async function blameHtml(ctx: Context, documentUrl: string, rows: { line: string; commit: string; time: number; author: string }[], total: number): Promise<void> {
  const frame = await frameOf(ctx);
  // people and documents by the names their pages give them (an author, a creator, an owner), other terms by their labels
  const iris = rows.flatMap((row) => (lineTerms(row.line) ?? []).filter((term, i) => i !== 1 && term.startsWith('<')).map((term) => term.slice(1, -1)));
  const names = await namesOf(ctx, [...rows.map((row) => row.author), ...iris]);
  const labels = ctx.state.runtime.labels.current();
  const label = (iri: string) => names[iri] ?? labelOf(iri, frame.language, labels);
  sendPage(ctx, 200, frame.language, blamePage(frame, documentUrl, rows.map((row) => ({ ...row, name: names[row.author] })), total, label));
}
