/**
 * `sitemap.xml` and `robots.txt` in every dataspace (SPEC §4.7), the route table's handlers: the
 * sitemap lists what the public read rules of the dataspace's own admin cover, with each
 * document's dct:modified; an admin dataspace, or one with nothing public, has none.
 */
import { PLAIN, XML } from '../rdf/media-types.js';
import { LodestoneError } from '../errors.js';
import { isDocumentPath } from '../document-paths.js';
import { isAdminDataspace } from './dataspace-role.js';
import type { Context, DataspaceRuntime } from './state.js';

/** The documents anonymous agents may read (empty for an admin dataspace, which has no sitemap). */
async function publicDocuments(runtime: DataspaceRuntime): Promise<string[]> {
  if (isAdminDataspace(runtime)) return [];
  return (await runtime.access.readableGraphs(runtime, undefined))?.graphs ?? [];
}

/** Whether a rule's target is a document that exists (a rule may name what is no document: every new data directory's public rules name `ns` and the admin dataspace's `access`). */
function documentExists(runtime: DataspaceRuntime, relativePath: string): boolean {
  return isDocumentPath(relativePath) && runtime.documents.blobId(relativePath) !== undefined;
}

/**
 * Whether the dataspace has a sitemap (every page's footer links it only then), from the public
 * read rules first: none that names this dataspace (the default) is a no, and one naming a document
 * that exists (or a container, whose rule covers it) a yes, without a walk of every document's
 * access, which costs seconds at 100,000 documents and is redone after each commit.
 */
export async function hasSitemap(runtime: DataspaceRuntime): Promise<boolean> {
  if (isAdminDataspace(runtime)) return false;
  const rules = (await runtime.access.policy()).publicReadRules();
  const base = runtime.documents.base;
  const here = [...rules.accessTo, ...rules.default].filter((url) => url.startsWith(base));
  if (here.length === 0 && rules.accessToClass.length === 0) return false;
  if (here.some((url) => documentExists(runtime, url.slice(base.length)))) return true;
  return (await publicDocuments(runtime)).length > 0;
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function sitemap(ctx: Context): Promise<void> {
  const { runtime } = ctx.state;
  const { documents } = runtime;
  const urls = await publicDocuments(runtime);
  if (urls.length === 0) throw new LodestoneError('NotFound', isAdminDataspace(runtime) ? 'an admin dataspace has no sitemap' : 'nothing in this dataspace is public, so it has no sitemap');
  const entries = await Promise.all(
    urls.sort().map(async (url) => {
      const modified = await documents.modified(url.slice(documents.base.length));
      return `  <url><loc>${escapeXml(url)}</loc>${modified ? `<lastmod>${escapeXml(modified)}</lastmod>` : ''}</url>`;
    }),
  );
  ctx.type = XML;
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

export async function robots(ctx: Context): Promise<void> {
  const { runtime } = ctx.state;
  const open = (await publicDocuments(runtime)).length > 0;
  ctx.type = PLAIN;
  ctx.body = open ? `User-agent: *\nAllow: /\nSitemap: ${runtime.documents.base}sitemap.xml\n` : 'User-agent: *\nDisallow: /\n';
}
