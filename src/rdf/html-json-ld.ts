/**
 * The JSON-LD blocks of an HTML page (JSON-LD 1.1 §7.3, "Embedding JSON-LD in HTML Documents"):
 * the text of every `<script type="application/ld+json">` element, in document order. One linear
 * scan that knows what an HTML tokenizer knows about where a script element can begin: not inside
 * a comment, a bogus comment (`<!…>`, `<?…>`), an end tag, an attribute value, or the raw text of
 * another element (`style`, `textarea`, `title`, another `script`…), whose text runs to its own end
 * tag. What it does not follow: the "script data escaped" states, in which `<!--<script>` inside a
 * script hides its `</script>` (a page that does that gets its block cut short, and the cut block
 * fails to parse). Pure.
 */
import { JSONLD } from './media-types.js';

/** Elements whose content is text up to their own end tag (HTML §13.1.2: raw text and escapable raw text). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);

const TAG_NAME = /[A-Za-z][^\s/>]*/y;
const ATTRIBUTE = /[\s/]*([^\s/>=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/y;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", plus: '+', sol: '/', nbsp: '\u00a0' };

/** Character references in an attribute value: numeric ones, and the few names a type attribute could hold. */
function decodeReferences(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, reference: string) => {
    if (reference[0] === '#') {
      const code = reference[1] === 'x' || reference[1] === 'X' ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }
    return NAMED[reference.toLowerCase()] ?? whole;
  });
}

/** Whether a script's `type` attribute names JSON-LD (its essence: no parameters, any case, trimmed). */
function isJsonLd(type: string | undefined): boolean {
  return type !== undefined && decodeReferences(type).split(';')[0]!.trim().toLowerCase() === JSONLD;
}

/** Where the text of a raw text element `name` that starts at `from` ends: its end tag, or the end of the page. */
function endOfRawText(html: string, name: string, from: number): number {
  const end = new RegExp(`</${name}[\\s/>]`, 'gi');
  end.lastIndex = from;
  const found = end.exec(html);
  return found ? found.index : html.length;
}

/** The text of each JSON-LD script element of `html`, in document order. */
export function jsonLdBlocks(html: string): string[] {
  const blocks: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    const next = html[open + 1];
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      at = close < 0 ? html.length : close + 3;
      continue;
    }
    if (next === '!' || next === '?' || next === '/') {
      // bogus comments, doctypes, end tags: they end at the next `>`
      const close = html.indexOf('>', open + 2);
      at = close < 0 ? html.length : close + 1;
      continue;
    }
    TAG_NAME.lastIndex = open + 1;
    const tag = TAG_NAME.exec(html);
    if (!tag) {
      at = open + 1; // a `<` that begins no tag is text
      continue;
    }
    const name = tag[0].toLowerCase();
    const attributes = new Map<string, string>();
    let cursor = TAG_NAME.lastIndex;
    for (;;) {
      ATTRIBUTE.lastIndex = cursor;
      const attribute = ATTRIBUTE.exec(html);
      if (!attribute || attribute[0] === '') break;
      const key = attribute[1]!.toLowerCase();
      if (!attributes.has(key)) attributes.set(key, attribute[2] ?? attribute[3] ?? attribute[4] ?? ''); // the first of a repeated attribute counts
      cursor = ATTRIBUTE.lastIndex;
    }
    const close = html.indexOf('>', cursor);
    if (close < 0) break; // a tag cut off at the end of the page
    at = close + 1;
    if (name === 'plaintext') break; // everything after it is text
    if (!RAW_TEXT.has(name)) continue; // a `/>` closes none of these: HTML ignores it on elements that are not void
    const end = endOfRawText(html, name, at);
    if (name === 'script' && isJsonLd(attributes.get('type'))) blocks.push(html.slice(at, end));
    at = end;
  }
  return blocks;
}
