/**
 * Packages (LinkedDataHub 6): a package is an `lds:Package` (or LinkedDataHub's `lapp:Package`)
 * with an ontology (`ldt:ontology`) and perhaps a stylesheet (`ac:stylesheet`, kept in its
 * description, not used). A dataspace imports one with `<dataspace> ldh:import <package>` in its
 * settings: the package description and its ontology are fetched under the outgoing-address rules
 * (loopback and private addresses only with --allow-internal-urls), and materialised as one
 * document of the admin dataspace, `packages/<sha1 of the package IRI>/` (namespace.ts counts it in
 * the namespace ontology while the import lasts); removing the import deletes that document. A
 * package that cannot be loaded, whatever the reason, is a ConstraintViolation (422) saying why.
 */
import type { DocumentService } from '../documents/document-service.js';
import { LodestoneError, isLodestoneError } from '../errors.js';
import { iriStatements, linesAbout } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { packagePath } from './governing.js';
import { documentIri } from '../rdf/iri.js';
import type { NamespaceOntology } from './namespace.js';
import { NTRIPLES } from '../rdf/media-types.js';

const PACKAGE_TYPES = [ns.lds + 'Package', ns.lapp + 'Package'];
const ONTOLOGY_PROPERTIES = [ns.ldt + 'ontology', ns.lds + 'ontology'];

function cannotLoad(packageIri: string, why: string): LodestoneError {
  return new LodestoneError('ConstraintViolation', `the package <${packageIri}> cannot be loaded: ${why}`);
}

/** Loads `url` for the package, any failure (a refused address included) turned into the package's 422. */
async function load(ontology: NamespaceOntology, packageIri: string, url: string): Promise<string> {
  try {
    return (await ontology.load(url)).ntriples;
  } catch (error) {
    if (isLodestoneError(error)) throw cannotLoad(packageIri, error.message);
    throw error;
  }
}

/** The N-Triples of the document a package is materialised as: its description and its ontology, which is declared an owl:Ontology. */
export async function fetchPackage(ontology: NamespaceOntology, packageIri: string, documentUrl: string): Promise<string> {
  const about = linesAbout(await load(ontology, packageIri, documentIri(packageIri)), packageIri);
  const objects = (predicates: string[]) => predicates.flatMap((p) => iriStatements(about, p).map((s) => s.object));
  if (!objects([RDF_TYPE]).some((type) => PACKAGE_TYPES.includes(type))) throw cannotLoad(packageIri, `${documentIri(packageIri)} does not describe it as an lds:Package`);
  const [ontologyIri, ...more] = objects(ONTOLOGY_PROPERTIES);
  if (!ontologyIri || more.length) throw cannotLoad(packageIri, `its description names ${ontologyIri ? 'more than one' : 'no'} ontology (ldt:ontology)`);
  const triples = await load(ontology, packageIri, documentIri(ontologyIri));
  const own = [`<${documentUrl}> <${ns.foaf}primaryTopic> <${packageIri}> .`, `<${ontologyIri}> <${RDF_TYPE}> <${ns.owl}Ontology> .`];
  return [...own, about, triples].join('\n') + '\n'; // (about holds a line at least: its rdf:type)
}

/** Fetches the package and writes its document into the admin dataspace (its container `packages/` made when missing). */
export async function installPackage(ontology: NamespaceOntology, admin: DocumentService, packageIri: string, agent: string | undefined): Promise<void> {
  const path = packagePath(packageIri);
  const ntriples = await fetchPackage(ontology, packageIri, admin.url(path));
  const put = (relativePath: string, text: string) => admin.write({ method: 'PUT', relativePath, agent, body: { text, mediaType: NTRIPLES } });
  if (admin.blobId('packages/') === undefined) await put('packages/', `<${admin.url('packages/')}> <${RDF_TYPE}> <${ns.dh}Container> .\n<${admin.url('packages/')}> <${ns.dct}title> "Packages" .\n`);
  await put(path, ntriples);
}

/** Deletes a package's document from the admin dataspace, if it is there. */
export async function removePackage(admin: DocumentService, packageIri: string, agent: string | undefined): Promise<void> {
  const path = packagePath(packageIri);
  if (admin.blobId(path) === undefined) return;
  await admin.write({ method: 'DELETE', relativePath: path, agent });
}
