/**
 * The vocabularies that ship with Lodestone (DESIGN.md, "Proxy": common vocabularies are never
 * fetched): RDF, RDFS, OWL, XSD, DCMI Terms, FOAF, SKOS, SIOC, ACL, CERT, PROV-O and schema.org, as
 * the `@vocabulary/*` packages publish them (N-Quads of the published documents, labels included).
 * The proxy answers a GET of a vocabulary's document (its namespace without the `#`, http or https)
 * with the whole vocabulary, and of a term of a slash namespace (`http://xmlns.com/foaf/0.1/Person`)
 * with the triples about that term, without a network request. Files are read on first use.
 * The LinkedDataHub namespaces Lodestone uses (dh, def, lds, lapp, lacl, ldh, a, ldt) have no
 * published package: `vocabularies/` holds Lodestone's own description of the terms it uses, with
 * their labels.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { LodestoneError } from '../errors.js';
import { linesBySubject, literalsOf } from '../rdf/canonical-lines.js';
import { ByteCache } from '../util/byte-cache.js';

interface Vocabulary {
  /** The npm package and its N-Quads file. */
  file: string;
  namespace: string;
}

const OWN_FOLDER = 'lodestone:vocabularies/';

const VOCABULARIES: readonly Vocabulary[] = [
  ['rdf', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'],
  ['rdfs', 'http://www.w3.org/2000/01/rdf-schema#'],
  ['owl', 'http://www.w3.org/2002/07/owl#'],
  ['xsd', 'http://www.w3.org/2001/XMLSchema#'],
  ['dcterms', 'http://purl.org/dc/terms/'],
  ['foaf', 'http://xmlns.com/foaf/0.1/'],
  ['skos', 'http://www.w3.org/2004/02/skos/core#'],
  ['sioc', 'http://rdfs.org/sioc/ns#'],
  ['acl', 'http://www.w3.org/ns/auth/acl#'],
  ['cert', 'http://www.w3.org/ns/auth/cert#'],
  ['prov', 'http://www.w3.org/ns/prov#'],
  ['schema', 'http://schema.org/'],
].map(([prefix, namespace]) => ({ file: `@vocabulary/${prefix}/${prefix}.nq`, namespace: namespace! }));

/** Lodestone's description of the LinkedDataHub terms it uses, in `vocabularies/` of the project. */
const OWN: readonly Vocabulary[] = [
  ['dh', 'https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#'],
  ['def', 'https://w3id.org/atomgraph/linkeddatahub/default#'],
  ['lds', 'https://w3id.org/atomgraph/linkeddatahub/dataspaces#'],
  ['lapp', 'https://w3id.org/atomgraph/linkeddatahub/apps#'],
  ['lacl', 'https://w3id.org/atomgraph/linkeddatahub/admin/acl#'],
  ['ldh', 'https://w3id.org/atomgraph/linkeddatahub#'],
  ['a', 'https://w3id.org/atomgraph/core#'],
  ['ldt', 'https://www.w3.org/ns/ldt#'],
].map(([prefix, namespace]) => ({ file: `${OWN_FOLDER}${prefix}.nt`, namespace: namespace! }));

const ALL: readonly Vocabulary[] = [...VOCABULARIES, ...OWN];

/** The serialisations made for clients are kept up to this many bytes (least recently used dropped first). */
const OUTPUT_BYTES = 32 * 1024 * 1024;
/** What a URL names among the shipped vocabularies. */
export interface ShippedDocument {
  /** The package file it comes from, for ETags and messages. */
  file: string;
  /** A term of a slash namespace: only the lines about it; undefined: the whole vocabulary. */
  term?: string;
}

/** The URL in its http form (vocabularies are published under both schemes; their IRIs are http). */
function httpForm(url: string): string {
  return url.replace(/^https:/, 'http:');
}

/** The shipped document `url` (without its fragment) names, if any. */
export function shippedDocument(url: string): ShippedDocument | undefined {
  const wanted = httpForm(url);
  for (const { file, namespace: declared } of ALL) {
    const namespace = httpForm(declared); // published under both schemes
    if (namespace.endsWith('#')) {
      if (wanted === namespace.slice(0, -1)) return { file };
    } else if (wanted === namespace || wanted + '/' === namespace) return { file };
    else if (wanted.startsWith(namespace) && !wanted.slice(namespace.length).includes('/')) return { file, term: wanted };
  }
  return undefined;
}

const resolve = createRequire(import.meta.url).resolve;

/** A shipped document's text and a digest of it (for its ETags). */
export interface ShippedText {
  /** N-Quads (the graph term is the vocabulary's; readers take the graphs as one); empty for a term the vocabulary does not describe. */
  text: string;
  digest: string;
}

export class Vocabularies {
  /**
   * The literal values of `predicates` in every shipped vocabulary (their labels, for pages), one
   * vocabulary at a time, the files read as the proxy reads them.
   */
  async *literals(predicates: ReadonlySet<string>): AsyncGenerator<{ subject: string; predicate: string; value: string; language: string }[]> {
    for (const { file } of ALL) {
      const { text } = await this.read({ file });
      yield [...literalsOf(text, predicates)];
    }
  }

  private readonly files = new Map<string, Promise<ShippedText>>();
  /** A file's lines by subject, made at the first term asked of it: a term is then found without a scan of the file on the thread that answers requests (schema.org's is 2.7 MB). */
  private readonly subjects = new Map<string, Map<string, string>>();
  /** Serialisations made for clients, by document and media type. */
  readonly outputs = new ByteCache<string>(OUTPUT_BYTES, (text) => text.length);

  async read(document: ShippedDocument): Promise<ShippedText> {
    let whole = this.files.get(document.file);
    if (!whole) {
      whole = this.load(document.file);
      whole.catch(() => this.files.delete(document.file));
      this.files.set(document.file, whole);
    }
    const file = await whole;
    if (!document.term) return file;
    let subjects = this.subjects.get(document.file);
    if (!subjects) {
      subjects = linesBySubject(file.text);
      this.subjects.set(document.file, subjects);
    }
    const text = subjects.get(document.term) ?? '';
    return { text, digest: digest(text) };
  }

  private async load(file: string): Promise<ShippedText> {
    let path: string;
    try {
      path = file.startsWith(OWN_FOLDER) ? fileURLToPath(new URL(`../../vocabularies/${file.slice(OWN_FOLDER.length)}`, import.meta.url)) : resolve(file);
    } catch {
      throw new LodestoneError('Corrupt', `the shipped vocabulary ${file} is not installed: run npm install`);
    }
    const text = await readFile(path, 'utf8');
    return { text, digest: digest(text) };
  }
}

function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
