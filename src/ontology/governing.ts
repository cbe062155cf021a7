/**
 * Who shapes a dataspace (DESIGN.md): the one written list of the admin documents whose words form
 * the namespace ontology (its classes, SHACL shapes and labels) and the class hierarchy that
 * `acl:accessToClass` follows. They are the owners' documents under `<admin>ontologies/` (writing
 * there takes the owners' authorization: acl:default on the admin base) and the documents of the
 * packages the end-user dataspace's settings import (`<admin>packages/<sha1 of the package IRI>/`,
 * written by the owners' settings edits). Nothing else counts, whatever it says: not an agent's
 * profile (`acl/agents/`), its public key, an access request, nor anything an agent owns because
 * it signed up.
 */
import { createHash } from 'node:crypto';
import { fileDocument } from '../document-paths.js';
import { iriStatements } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';

/** The admin container of the owners' ontology documents (the bootstrap makes it). */
export const ONTOLOGIES = 'ontologies/';

/** Where the document of a package lives in the admin dataspace. */
export function packagePath(packageIri: string): string {
  return `packages/${createHash('sha1').update(packageIri).digest('hex')}/`;
}

/** Whether the admin document at `relative` (a path relative to the admin base) shapes the dataspace while `packages` (package IRIs) are imported. */
export function shapesDataspace(relative: string, packages: readonly string[]): boolean {
  return relative.startsWith(ONTOLOGIES) || packages.some((iri) => packagePath(iri) === relative);
}

/** The documents of the admin store that shape the dataspace while `packages` are imported, with their blob ids. */
export function shapingDocuments(store: { prefix: string; listFiles(): ReadonlyMap<string, string> }, packages: readonly string[]): { relative: string; blobId: string }[] {
  const found: { relative: string; blobId: string }[] = [];
  // their files are `<prefix>/ontologies.nt`, `<prefix>/ontologies/…` and `<prefix>/packages/…`: the others are not decoded
  const folders = [`${store.prefix}/${ONTOLOGIES.slice(0, -1)}`, `${store.prefix}/packages/`];
  for (const [file, blobId] of store.listFiles()) {
    if (!folders.some((folder) => file.startsWith(folder))) continue;
    const relative = fileDocument(file, store.prefix);
    if (relative !== undefined && shapesDataspace(relative, packages)) found.push({ relative, blobId });
  }
  return found;
}

/**
 * A data directory made before the owners' ontologies had a container of their own has no
 * `ontologies/`, and its ontology documents elsewhere in the admin dataspace shape nothing any more.
 * Said at start, once, with what to do: the server writes nothing of its own accord (a restart
 * commits only what someone edited).
 */
export async function warnOfOldOntologies(admin: { base: string; store: { prefix: string; listFiles(): ReadonlyMap<string, string>; readBlob(id: string): Promise<Buffer> } }, log: (line: string) => void): Promise<void> {
  const files = admin.store.listFiles();
  if (files.has(`${admin.store.prefix}/${ONTOLOGIES.slice(0, -1)}.nt`)) return;
  const strays: string[] = [];
  for (const [file, blobId] of files) {
    const relative = fileDocument(file, admin.store.prefix);
    if (relative === undefined || relative.startsWith('packages/')) continue;
    const text = (await admin.store.readBlob(blobId)).toString('utf8');
    if (iriStatements(text, RDF_TYPE).some((statement) => statement.object === ns.owl + 'Ontology')) strays.push(admin.base + relative);
  }
  const where = `${admin.base}${ONTOLOGIES}`;
  log(`the owners' ontology documents live in ${where}, which this data directory does not have: PUT it as a dh:Container (as the owner)${strays.length ? `, and move ${strays.join(', ')} there: an ontology elsewhere shapes nothing` : ''}`);
}
