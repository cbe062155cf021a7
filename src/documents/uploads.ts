/**
 * Uploaded files (issue 28; where they are: upload-layout.ts): an upload is its description and its
 * blob, added by one commit (document-service.ts deletes both by one commit too). A description
 * is made only by an upload, and holds no documents (its folder name is the blob's). The
 * description says what LinkedDataHub's do: nfo:FileDataObject, dct:format, nfo:fileSize,
 * foaf:sha1, nfo:fileName, dct:creator, dct:created.
 */
import { DataFactory } from 'n3';
import { isLodestoneError } from '../errors.js';
import { iriObjects, literalObject } from '../rdf/canonical-lines.js';
import { NTRIPLES } from '../rdf/media-types.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { tripleLine } from '../rdf/ntriples.js';
import type { DocumentService } from './document-service.js';
import { createOnly } from './preconditions.js';
import { descriptionPath, UPLOADS, uploadBlobPath } from './upload-layout.js';

const { namedNode, literal, quad } = DataFactory;

export interface UploadInput {
  sha1: string;
  /** The git blob id of the bytes (hashed by the caller, off the write path). */
  blobId: string;
  bytes: Buffer;
  mediaType: string;
  /** The name the file had on the uploader's disk, when a form sent one. */
  fileName?: string;
  title?: string;
  agent: string | undefined;
  now: string;
}

/** The description of an uploaded file, as N-Triples (the server adds the document's own metadata). */
export function describeUpload(base: string, input: UploadInput): string {
  const doc = namedNode(base + descriptionPath(input.sha1));
  const file = namedNode(base + UPLOADS + input.sha1);
  const xsd = (type: string) => namedNode(ns.xsd + type);
  const title = input.title?.trim() || input.fileName || input.sha1;
  const quads = [
    quad(doc, namedNode(ns.foaf + 'primaryTopic'), file),
    quad(doc, namedNode(ns.dct + 'title'), literal(title)),
    quad(file, namedNode(RDF_TYPE), namedNode(ns.nfo + 'FileDataObject')),
    quad(file, namedNode(ns.dct + 'title'), literal(title)),
    quad(file, namedNode(ns.dct + 'format'), namedNode(ns.mediatype + input.mediaType)),
    quad(file, namedNode(ns.nfo + 'fileSize'), literal(String(input.bytes.length), xsd('long'))),
    quad(file, namedNode(ns.foaf + 'sha1'), literal(input.sha1)),
    quad(file, namedNode(ns.dct + 'created'), literal(input.now, xsd('dateTime'))),
  ];
  if (input.fileName) quads.push(quad(file, namedNode(ns.nfo + 'fileName'), literal(input.fileName)));
  if (input.agent) quads.push(quad(file, namedNode(ns.dct + 'creator'), namedNode(input.agent)));
  return quads.map(tripleLine).join('\n') + '\n';
}

/** The media type and file name a stored description gives its file (canonical N-Triples). */
export function describedFile(bytes: Buffer, fileUrl: string): { mediaType: string | undefined; fileName: string | undefined } {
  const format = iriObjects(bytes, fileUrl, ns.dct + 'format').find((iri) => iri.startsWith(ns.mediatype));
  return { mediaType: format?.slice(ns.mediatype.length), fileName: literalObject(bytes.toString('utf8'), fileUrl, ns.nfo + 'fileName') };
}

/**
 * Stores an upload: its description and its blob in one commit (the `uploads/` container first, in
 * a commit of its own, the first time). The same bytes sent again find their description there and
 * change nothing: `created` is false.
 */
export async function storeUpload(documents: DocumentService, input: UploadInput): Promise<{ created: boolean }> {
  const { base } = documents;
  if (documents.blobId(UPLOADS) === undefined) {
    const container = `<${base}${UPLOADS}> <${RDF_TYPE}> <${ns.dh}Container> .\n<${base}${UPLOADS}> <${ns.dct}title> "Uploads" .\n`;
    await documents
      .write({ method: 'PUT', relativePath: UPLOADS, agent: input.agent, body: { text: container, mediaType: NTRIPLES }, conditions: createOnly })
      .catch((error: unknown) => {
        if (!isLodestoneError(error, 'PreconditionFailed')) throw error; // made meanwhile
      });
  }
  const attach = [{ path: uploadBlobPath(documents.dataspace.store.prefix, input.sha1), bytes: input.bytes, blobId: input.blobId }];
  try {
    await documents.write({ method: 'PUT', relativePath: descriptionPath(input.sha1), agent: input.agent, body: { text: describeUpload(base, input), mediaType: NTRIPLES }, conditions: createOnly, attach });
    return { created: true };
  } catch (error) {
    if (isLodestoneError(error, 'PreconditionFailed')) return { created: false }; // content-addressed: these bytes are there
    throw error;
  }
}
