/**
 * HTML as values: the `html` tag escapes every interpolated value unless it is itself `Html` (made
 * by the tag, or by `raw` for text known to be markup). Arrays are joined; undefined, null and false
 * render as nothing, so `${cond && html`…`}` reads as a condition. Every page is built from these,
 * so a value from a document, a header or a query can never become markup; and only `webUrl`s
 * (http, https) become a link or an image source.
 */
import { createHash } from 'node:crypto';

export class Html {
  private utf8: { bytes: Buffer; tag: string } | undefined;
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }

  /** The markup as UTF-8, and a strong validator over those bytes: computed once, so a page kept once drawn costs neither again. */
  get encoded(): { bytes: Buffer; tag: string } {
    if (!this.utf8) {
      const bytes = Buffer.from(this.text, 'utf8');
      this.utf8 = { bytes, tag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
    }
    return this.utf8;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for element content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export type HtmlValue = Html | string | number | undefined | null | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup the caller vouches for (never text from a request or a document). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/**
 * The IRI as a URL a browser may follow or load: http or https only. Any other scheme (`javascript:`,
 * `data:`, `file:`…) names something, but a page never links to it or loads it (it is shown as text).
 */
export function webUrl(iri: string): URL | undefined {
  try {
    const url = new URL(iri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
