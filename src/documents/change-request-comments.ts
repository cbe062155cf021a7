/**
 * Comments on a branch's change request (issue 30): the thread `<base>?branch=<name>&comments`,
 * each comment a `sioc:Post` at `<thread>#comment-<n>` (n counts from 1 in the order posted) with
 * its text (`sioc:content`, a plain literal), `dct:created`, its author (`sioc:has_creator`,
 * `foaf:maker`: the agent's WebID) and `sioc:has_container` the change request. Kept apart from the
 * branch and main (store/comment-threads.ts); a comment is one commit `POST <change request URL>`.
 */
import { DataFactory } from 'n3';
import { agentIdentity, type Dataspace } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import { lexicalForm, lineTerms, linesOf } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { joinUnique, termToNTriples } from '../rdf/ntriples.js';
import { branchName } from '../store/branches.js';

/** The longest comment, in characters (code points). */
export const COMMENT_MAX = 10_000;
/** The most comments a change request holds, and the most bytes its thread: a thread is read, written and serialised whole. */
export const THREAD_MAX = 1_000;
export const THREAD_BYTES_MAX = 2 * 1024 * 1024;

/** One comment as the page shows it. */
export interface CommentView {
  iri: string;
  content: string;
  created: string;
  creator: string | undefined;
}

/** A control character other than tab and newline (a CR of a form's CRLF is taken out first). */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/** `raw` as a comment's text (line ends made `\n`, outer white space trimmed), or a 400 saying what is wrong. */
export function commentText(raw: string): string {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw new LodestoneError('BadRequest', 'the comment is empty: send its text');
  const length = [...text].length;
  if (length > COMMENT_MAX) throw new LodestoneError('BadRequest', `the comment is ${length} characters long; at most ${COMMENT_MAX} are allowed`);
  const control = CONTROL.exec(text);
  if (control) throw new LodestoneError('BadRequest', `the comment holds a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}) at character ${[...text.slice(0, control.index)].length + 1}; only newlines and tabs are allowed`);
  return text;
}

const iri = (value: string) => `<${value}>`;
const literal = (value: string, datatype?: string) => termToNTriples(DataFactory.literal(value, datatype === undefined ? undefined : DataFactory.namedNode(datatype)));

export class ChangeRequestComments {
  constructor(private readonly dataspace: Dataspace) {}

  /** The thread's URL. */
  threadUrl(name: string): string {
    return `${this.dataspace.base}?branch=${encodeURIComponent(name)}&comments`;
  }

  /** The change request's URL (the comments' container). */
  changesUrl(name: string): string {
    return `${this.dataspace.base}?branch=${encodeURIComponent(name)}&changes`;
  }

  /** The thread as canonical N-Triples and its last commit (undefined: no comment yet). */
  async thread(name: string): Promise<{ head: string | undefined; ntriples: string }> {
    const thread = await this.dataspace.commentThreads.read(branchName(name, this.dataspace.store.branch));
    return { head: thread?.head, ntriples: thread?.ntriples ?? '' };
  }

  /** Adds a comment by `agent` (`text` checked by commentText): its IRI, and the commit that holds it. */
  async post(name: string, text: string, agent: string): Promise<{ iri: string; commit: string }> {
    const branch = branchName(name, this.dataspace.store.branch);
    const thread = this.threadUrl(branch);
    const { commit, result } = await this.dataspace.commentThreads.append(
      branch,
      (current) => {
        const count = linesOf(current).filter((line) => line.endsWith(` <${RDF_TYPE}> <${ns.sioc}Post> .`)).length;
        if (count >= THREAD_MAX) throw new LodestoneError('Conflict', `the change request has ${THREAD_MAX} comments, as many as it may hold`);
        const post = `${thread}#comment-${count + 1}`;
        const s = iri(post);
        const lines = [
          `${s} ${iri(RDF_TYPE)} ${iri(ns.sioc + 'Post')} .`,
          `${s} ${iri(ns.sioc + 'content')} ${literal(text)} .`,
          `${s} ${iri(ns.dct + 'created')} ${literal(new Date().toISOString(), ns.xsd + 'dateTime')} .`,
          `${s} ${iri(ns.sioc + 'has_creator')} ${iri(agent)} .`,
          `${s} ${iri(ns.foaf + 'maker')} ${iri(agent)} .`,
          `${s} ${iri(ns.sioc + 'has_container')} ${iri(this.changesUrl(branch))} .`,
        ];
        const ntriples = joinUnique([...linesOf(current), ...lines]);
        if (Buffer.byteLength(ntriples) > THREAD_BYTES_MAX) throw new LodestoneError('Conflict', `the change request's comments would take more than ${THREAD_BYTES_MAX / 1024 / 1024} MiB, as much as they may`);
        return { ntriples, result: post };
      },
      agentIdentity(agent),
      `POST ${this.changesUrl(branch)}`,
    );
    return { iri: result, commit };
  }

  /** The comments of a thread's N-Triples, in the order posted. */
  static posts(ntriples: string): CommentView[] {
    const posts = new Map<string, CommentView>();
    for (const line of linesOf(ntriples)) {
      const terms = lineTerms(line);
      if (!terms || !terms[0].startsWith('<')) continue;
      const subject = terms[0].slice(1, -1);
      const post = posts.get(subject) ?? { iri: subject, content: '', created: '', creator: undefined };
      posts.set(subject, post);
      const [, predicate, object] = terms;
      if (predicate === iri(ns.sioc + 'content')) post.content = lexicalForm(object) ?? '';
      else if (predicate === iri(ns.dct + 'created')) post.created = lexicalForm(object) ?? '';
      else if (predicate === iri(ns.sioc + 'has_creator') && object.startsWith('<')) post.creator = object.slice(1, -1);
    }
    const number = (post: CommentView) => Number(/#comment-(\d+)$/.exec(post.iri)?.[1] ?? 0);
    return [...posts.values()].filter((p) => p.created !== '').sort((a, b) => number(a) - number(b));
  }
}
