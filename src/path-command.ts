/**
 * `lodestone path <url>`: the file that holds a document, for people who edit with git. It reads
 * the descriptions the server wrote into each repository of the data directory (base, prefix),
 * picks the dataspace whose base is the longest prefix of the URL, and applies the document ↔
 * file rule (document-paths.ts, DESIGN.md "Document ↔ file"). It reads no document and needs no
 * running server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { descriptionFile, type DataspaceDescription } from './dataspace.js';
import { canonicalDocumentPath, documentFile } from './document-paths.js';

/** The absolute path of the file of the document at `url` in the data directory `dataDir`. */
export function documentFilePath(dataDir: string, url: string): string {
  const data = resolve(dataDir);
  const root = join(data, 'dataspaces');
  if (!existsSync(root)) throw new Error(`${data} holds no dataspaces (no ${root}): is it the --data of a server that has started once?`);
  const described: Array<DataspaceDescription & { dir: string }> = [];
  for (const id of readdirSync(root)) {
    const file = descriptionFile(join(root, id, '.git'));
    if (existsSync(file)) described.push({ ...(JSON.parse(readFileSync(file, 'utf8')) as DataspaceDescription), dir: join(root, id) });
  }
  // a fragment names a resource in the document; the document is the URL without it (RFC 3986 §3.5)
  const document = url.replace(/#.*$/, '');
  if (/[?]/.test(document)) throw new Error(`${url} has a query: a document URL has none`);
  const space = described.filter((d) => document.startsWith(d.base)).sort((a, b) => b.base.length - a.base.length)[0];
  if (!space) throw new Error(`no dataspace in ${data} holds ${url}; their bases: ${described.map((d) => d.base).join(', ') || 'none yet'}`);
  const relative = canonicalDocumentPath(document.slice(space.base.length));
  return join(space.dir, documentFile(relative, space.prefix));
}
