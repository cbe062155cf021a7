/**
 * Where uploaded files are (DESIGN.md, "Files"; issue 28), as LinkedDataHub keeps them: the file is
 * `<base>uploads/<sha1>` (the SHA-1 of its bytes) and its description, an RDF document,
 * `<base>uploads/<sha1>/`. In git the bytes are a blob beside the description's file,
 * `<prefix>/uploads/<sha1>` next to `<prefix>/uploads/<sha1>.nt`. Pure.
 */
import { LodestoneError } from '../errors.js';

/** The container of the uploads' descriptions. */
export const UPLOADS = 'uploads/';
const DESCRIPTION = /^uploads\/([0-9a-f]{40})\/$/;
const UNDER_DESCRIPTION = /^uploads\/[0-9a-f]{40}\/./;

/** The relative path of the description of the file with SHA-1 `sha1`. */
export function descriptionPath(sha1: string): string {
  return `${UPLOADS}${sha1}/`;
}

/** The SHA-1 of the file a document path describes, or undefined when it describes none. */
export function describedSha1(relativePath: string): string | undefined {
  return DESCRIPTION.exec(relativePath)?.[1];
}

/** Where the bytes are in the repository, beside the description's `.nt` file. */
export function uploadBlobPath(prefix: string, sha1: string): string {
  return `${prefix}/uploads/${sha1}`;
}

/**
 * Why a write of a document is refused for the uploads' sake, or undefined: a document under a
 * description would need a folder where the file's blob is, and a description made by hand would
 * describe bytes nobody sent (`upload` says the write is the upload itself).
 */
export function uploadRefusal(relativePath: string, creating: boolean, blobThere: boolean, upload: boolean): LodestoneError | undefined {
  if (UNDER_DESCRIPTION.test(relativePath)) return new LodestoneError('ConstraintViolation', `the description of an uploaded file (${relativePath.slice(0, UPLOADS.length + 41)}) holds no documents`);
  if (creating && !upload && !blobThere && describedSha1(relativePath) !== undefined) {
    return new LodestoneError('Conflict', `${relativePath} is made by uploading its file: POST the bytes to ${UPLOADS}`);
  }
  return undefined;
}
