/**
 * Uploads in pages (issue 28): the form that uploads a file (a plain multipart form, so it works
 * without scripts; the server answers it with the page of the file's description), and on that
 * description's page the file itself: the image shown, or a link to download it. Only a file of this
 * dataspace's `uploads/` that the page describes is drawn so. Pure.
 */
import type { Quad } from '@rdfjs/types';
import { html, type Html } from './html.js';
import type { Messages } from './messages.js';
import { ns } from '../rdf/namespaces.js';
import { MULTIPART_FORM } from '../rdf/media-types.js';

/** The types drawn as an image (an `<img>` runs no script, SVG included). */
const IMAGES = /^image\/(png|jpeg|gif|webp|avif|svg\+xml)$/;

export function uploadForm(action: string, t: Messages): Html {
  return html`<section class="upload"><h2>${t.uploadFile}</h2>
<form class="upload-file" method="post" action="${action}" enctype="${MULTIPART_FORM}">
<p>${t.uploadHelp}</p>
<p><label for="upload-file">${t.fileToUpload}</label> <input id="upload-file" name="file" type="file" required></p>
<p><label for="upload-title">${t.title}</label> <input id="upload-title" name="title"></p>
<p><button type="submit">${t.upload}</button></p>
</form></section>`;
}

/** The file a description under `<base>uploads/` is about, drawn: undefined for any other document. */
export function uploadedFile(quads: readonly Quad[], documentUrl: string, base: string, t: Messages, title: string): Html | undefined {
  const file = documentUrl.slice(0, -1);
  if (!/^[0-9a-f]{40}$/.test(file.slice(`${base}uploads/`.length)) || !file.startsWith(`${base}uploads/`)) return undefined;
  const about = (predicate: string) => quads.find((q) => q.subject.value === file && q.predicate.value === predicate)?.object.value;
  if (about(ns.rdf + 'type') === undefined) return undefined;
  const format = about(ns.dct + 'format');
  const type = format?.startsWith(ns.mediatype) ? format.slice(ns.mediatype.length) : undefined;
  const size = about(ns.nfo + 'fileSize');
  return html`<figure class="uploaded-file">
${type !== undefined && IMAGES.test(type) && html`<a href="${file}"><img src="${file}" alt="${title}"></a>`}
<figcaption><a href="${file}" download>${t.downloadFile}</a>${type !== undefined && size !== undefined && html` (${t.uploadedFile(type, size)})`}</figcaption>
</figure>`;
}
