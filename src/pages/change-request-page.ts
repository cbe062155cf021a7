/**
 * The page of a branch's change request (`<base>?branch=<name>&changes`, issue 30): each changed
 * document the viewer may read, linked on main and on the branch, with the triples the branch
 * removed and added, terms labelled as the blame page labels them; for one who may write, the merge
 * and discard buttons (static/lodestone.js sends them with the branch's ETag in If-Match); its
 * comments (`?branch=<name>&comments`), and for one who may comment a plain form that posts one.
 */
import { assetUrls } from './assets.js';
import { termHtml } from './blame-page.js';
import { breadcrumbsOf } from './document-page.js';
import { authorLink, dateFormat } from './history-page.js';
import { html, type Html } from './html.js';
import { page, type Frame } from './layout.js';
import { lineTerms } from '../rdf/canonical-lines.js';

export interface ChangedDocumentView {
  url: string;
  removed: readonly string[];
  added: readonly string[];
}

/** One comment of the thread: its author's WebID (undefined: unknown) and name as their profile gives it. */
export interface CommentItem {
  iri: string;
  content: string;
  created: string;
  creator: string | undefined;
  name?: string;
}

/** The thread as the page shows it; `canComment` shows the form. */
export interface ThreadView {
  url: string;
  comments: readonly CommentItem[];
  canComment: boolean;
}

type PageFrame = Omit<Frame, 'title' | 'kind' | 'breadcrumbs'>;

/** The comments, oldest first, each text as written (escaped; newlines kept by the style), and the form. */
function threadHtml(frame: PageFrame, thread: ThreadView): Html {
  const { t } = frame;
  const date = dateFormat(frame);
  const when = (created: string) => (Number.isNaN(Date.parse(created)) ? created : `${date.format(new Date(created))} UTC`);
  const items = thread.comments.map((c) => html`<li id="${c.iri.slice(c.iri.indexOf('#') + 1)}" class="comment">
<p class="comment-meta">${c.creator === undefined ? t.someone : authorLink(c.creator, c.name)} · <time datetime="${c.created}">${when(c.created)}</time></p>
<p class="comment-text">${c.content}</p>
</li>`);
  return html`<section class="comments" aria-labelledby="comments-title">
<h2 id="comments-title">${t.comments(thread.comments.length)}</h2>
${thread.comments.length === 0 ? html`<p>${t.noComments}</p>` : html`<ol class="comments">${items}</ol>`}
<p><a href="${thread.url}&amp;accept=text%2Fturtle">${t.commentsAsRdf}</a></p>
${thread.canComment && html`<form class="comment-form" method="post" action="${thread.url}">
<label for="comment-content">${t.addComment}</label>
<textarea id="comment-content" name="content" rows="4" required maxlength="10000"></textarea>
<p><button type="submit">${t.postComment}</button></p>
</form>`}
</section>`;
}

/** The page: `head` is the branch's HEAD (its ETag); `canWrite` shows the merge and discard form; `merged`, main's commit that took the changes shown (no form then). */
export function changeRequestPage(frame: PageFrame, name: string, head: string, documents: readonly ChangedDocumentView[], canWrite: boolean, label: (iri: string) => string, thread: ThreadView, merged?: string): Html {
  const { t } = frame;
  const url = `${frame.base}?branch=${encodeURIComponent(name)}&changes`;
  const title = t.changesOfBranch(name);
  const line = (text: string) => {
    const terms = lineTerms(text);
    return html`<li title="${text}">${terms ? html`${termHtml(terms[0], label)} · ${termHtml(terms[1], label)} · ${termHtml(terms[2], label)}` : html`<code>${text}</code>`}</li>`;
  };
  const sections = documents.map((d) => html`<section class="changed-document">
<h2><a href="${d.url}">${d.url}</a></h2>
<p><a href="${d.url}">${t.onMain}</a> · <a href="${d.url}?branch=${encodeURIComponent(name)}">${t.onBranch}</a></p>
${d.removed.length > 0 && html`<h3>${t.removed} (${d.removed.length})</h3><ul class="triples removed">${d.removed.map(line)}</ul>`}
${d.added.length > 0 && html`<h3>${t.added} (${d.added.length})</h3><ul class="triples added">${d.added.map(line)}</ul>`}
</section>
`);
  const form = canWrite && merged === undefined && html`<form class="change-request" hidden data-changes="${url}" data-etag="&quot;${head}&quot;" data-merged="${t.merged}" data-discarded="${t.discarded}" data-moved="${t.branchMoved}" data-conflicts="${t.mergeConflicts}" data-confirm="${t.discardConfirm}" data-sides="${JSON.stringify(t.conflictSides)}">
<p><button type="submit" name="op" value="merge">${t.mergeBranch}</button> <button type="submit" name="op" value="discard" class="danger">${t.discardBranch}</button></p>
<div class="status" role="status" aria-live="polite"></div>
</form>
<noscript><p>${t.mergeWithoutScript(`"${head}"`)}</p></noscript>
<script src="${assetUrls(frame.base, 'change-request.js')}" defer></script>`;
  const body = html`<h1>${title}</h1>
<p>${merged === undefined ? t.changeRequestHelp : html`<strong class="merged-as">${t.mergedInto(merged.slice(0, 7))}</strong>`}</p>
<p><a href="${url}&amp;accept=text%2Fplain">${t.asText}</a> · <code>${head.slice(0, 7)}</code></p>
${form}
${documents.length === 0 ? html`<p>${t.noReadableChanges}</p>` : sections}
${threadHtml(frame, thread)}`;
  return page({ ...frame, title, kind: 'page-change-request', breadcrumbs: [...breadcrumbsOf(frame.base, frame.base, t.home, t.home), { label: t.changeRequest, href: url }] }, body);
}
