/**
 * SPARQL query results as another endpoint sends them, read and written again in the format a
 * client asks for (the proxy re-serialises a remote endpoint's answer per Accept). Read: SPARQL
 * 1.1 Query Results JSON and XML (the XML without a DOCTYPE: no entity is declared or expanded).
 * Written: JSON, XML, CSV and TSV (W3C SPARQL 1.1 Query Results CSV and TSV Formats; an ASK
 * result in CSV and TSV as Jena writes it, like the local endpoint). Pure.
 */
import { LodestoneError } from '../errors.js';
import { RESULTS_CSV, RESULTS_JSON, RESULTS_TSV, RESULTS_XML } from './media-types.js';


export { RESULTS_CSV, RESULTS_JSON, RESULTS_TSV, RESULTS_XML }; // named in media-types.ts
/** The result formats, JSON first (the default). */
export const resultTypes: readonly string[] = [RESULTS_JSON, RESULTS_XML, RESULTS_CSV, RESULTS_TSV];
/** The result formats read. */
export const readableResultTypes: readonly string[] = [RESULTS_JSON, RESULTS_XML];

export interface ResultTerm {
  type: 'uri' | 'literal' | 'bnode';
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

export type Results = { vars: string[]; bindings: Array<Record<string, ResultTerm>> } | { boolean: boolean };

function invalid(mediaType: string, why: string): LodestoneError {
  return new LodestoneError('SyntaxError', `invalid ${mediaType}: ${why}`);
}

function term(value: unknown, mediaType: string): ResultTerm {
  const t = value as Partial<ResultTerm> | null;
  if (!t || typeof t !== 'object' || typeof t.value !== 'string') throw invalid(mediaType, 'a binding without a value');
  const type = (t.type as string) === 'typed-literal' ? 'literal' : t.type; // the 2008 JSON draft's name
  if (type !== 'uri' && type !== 'literal' && type !== 'bnode') throw invalid(mediaType, `a binding of type ${String(t.type)}`);
  const out: ResultTerm = { type, value: t.value };
  if (type === 'literal' && typeof t['xml:lang'] === 'string') out['xml:lang'] = t['xml:lang'];
  else if (type === 'literal' && typeof t.datatype === 'string') out.datatype = t.datatype;
  return out;
}

function readJson(text: string): Results {
  let json: { head?: { vars?: unknown }; boolean?: unknown; results?: { bindings?: unknown } };
  try {
    json = JSON.parse(text) as typeof json;
  } catch (error) {
    throw invalid(RESULTS_JSON, (error as Error).message);
  }
  if (typeof json?.boolean === 'boolean') return { boolean: json.boolean };
  const vars = json?.head?.vars;
  const bindings = json?.results?.bindings;
  if (!Array.isArray(vars) || !vars.every((v) => typeof v === 'string') || !Array.isArray(bindings)) throw invalid(RESULTS_JSON, 'neither a boolean nor head.vars with results.bindings');
  return {
    vars: vars as string[],
    bindings: bindings.map((row: unknown) => {
      if (!row || typeof row !== 'object') throw invalid(RESULTS_JSON, 'a result that is not an object');
      return Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([name, value]) => [name, term(value, RESULTS_JSON)]));
    }),
  };
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function xmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    const known = XML_ENTITIES[name];
    if (known === undefined) throw invalid(RESULTS_XML, `the undeclared entity ${whole}`);
    return known;
  });
}

function xmlAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, double, single] of text.matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes.set(name!, xmlText(double ?? single ?? ''));
  return attributes;
}

/** The SPARQL XML results format, read element by element (a fixed, shallow vocabulary: no general XML parser is needed). */
function readXml(text: string): Results {
  if (/<!DOCTYPE/i.test(text)) throw invalid(RESULTS_XML, 'a DOCTYPE (entity declarations are not read)');
  const vars: string[] = [];
  const bindings: Array<Record<string, ResultTerm>> = [];
  let row: Record<string, ResultTerm> | undefined;
  let binding: string | undefined;
  let open: { type: ResultTerm['type'] | 'boolean'; attributes: Map<string, string>; start: number } | undefined;
  let answer: boolean | undefined;
  const token = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)([A-Za-z_][\w.:-]*)([^>]*?)(\/?)>/g;
  for (const match of text.matchAll(token)) {
    const [whole, closing, qname, rest, selfClosing] = match;
    if (!qname) continue; // comments, processing instructions; CDATA only inside a term, read with its text
    const name = qname.includes(':') ? qname.slice(qname.indexOf(':') + 1) : qname;
    if (open) {
      if (!closing || name !== (open.type === 'boolean' ? 'boolean' : open.type === 'bnode' ? 'bnode' : open.type)) continue;
      const raw = text.slice(open.start, match.index);
      const value = raw.replace(/<!\[CDATA\[([\s\S]*?)\]\]>|([^<]+)/g, (_all, cdata: string | undefined, plain: string | undefined) => cdata ?? xmlText(plain ?? ''));
      if (open.type === 'boolean') answer = value.trim() === 'true';
      else if (row && binding !== undefined) {
        const out: ResultTerm = { type: open.type, value };
        const lang = open.attributes.get('xml:lang');
        const datatype = open.attributes.get('datatype');
        if (open.type === 'literal' && lang) out['xml:lang'] = lang;
        else if (open.type === 'literal' && datatype) out.datatype = datatype;
        row[binding] = out;
      }
      open = undefined;
      continue;
    }
    const attributes = closing ? new Map<string, string>() : xmlAttributes(rest ?? '');
    if (closing) {
      if (name === 'result' && row) {
        bindings.push(row);
        row = undefined;
      } else if (name === 'binding') binding = undefined;
      continue;
    }
    if (name === 'variable') vars.push(attributes.get('name') ?? '');
    else if (name === 'result') row = {};
    else if (name === 'binding') binding = attributes.get('name');
    else if (name === 'uri' || name === 'literal' || name === 'bnode' || name === 'boolean') {
      if (selfClosing) {
        if (name !== 'boolean' && row && binding !== undefined) row[binding] = { type: name, value: '' };
      } else open = { type: name, attributes, start: match.index + whole.length };
    }
  }
  if (open) throw invalid(RESULTS_XML, `an unclosed <${open.type}>`);
  if (answer !== undefined) return { boolean: answer };
  if (!/<(?:\w+:)?sparql[\s>]/.test(text)) throw invalid(RESULTS_XML, 'no <sparql> element');
  return { vars, bindings };
}

/** Results in `mediaType` (JSON or XML), read. */
export function readResults(text: string, mediaType: string): Results {
  if (mediaType === RESULTS_JSON) return readJson(text);
  if (mediaType === RESULTS_XML) return readXml(text);
  throw invalid(mediaType, 'not a results format Lodestone reads');
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function xmlTerm(t: ResultTerm): string {
  if (t.type !== 'literal') return `<${t.type}>${escapeXml(t.value)}</${t.type}>`;
  const attribute = t['xml:lang'] ? ` xml:lang="${escapeXml(t['xml:lang'])}"` : t.datatype ? ` datatype="${escapeXml(t.datatype)}"` : '';
  return `<literal${attribute}>${escapeXml(t.value)}</literal>`;
}

function writeXml(results: Results): string {
  const head = '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n';
  if ('boolean' in results) return `${head}<head/>\n<boolean>${results.boolean}</boolean>\n</sparql>\n`;
  const variables = results.vars.map((v) => `<variable name="${escapeXml(v)}"/>`).join('');
  const rows = results.bindings.map((row) => `<result>${Object.entries(row).map(([name, t]) => `<binding name="${escapeXml(name)}">${xmlTerm(t)}</binding>`).join('')}</result>\n`).join('');
  return `${head}<head>${variables}</head>\n<results>\n${rows}</results>\n</sparql>\n`;
}

function csvField(t: ResultTerm | undefined): string {
  if (!t) return '';
  const value = t.type === 'bnode' ? `_:${t.value}` : t.value;
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function tsvTerm(t: ResultTerm | undefined): string {
  if (!t) return '';
  if (t.type === 'uri') return `<${t.value}>`;
  if (t.type === 'bnode') return `_:${t.value}`;
  const lexical = `"${t.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
  if (t['xml:lang']) return `${lexical}@${t['xml:lang']}`;
  return t.datatype && t.datatype !== 'http://www.w3.org/2001/XMLSchema#string' ? `${lexical}^^<${t.datatype}>` : lexical;
}

/** Results written in `mediaType`, one of `resultTypes`. */
export function writeResults(results: Results, mediaType: string): string {
  if (mediaType === RESULTS_JSON) return JSON.stringify('boolean' in results ? { head: {}, boolean: results.boolean } : { head: { vars: results.vars }, results: { bindings: results.bindings } });
  if (mediaType === RESULTS_XML) return writeXml(results);
  if (mediaType === RESULTS_CSV) {
    if ('boolean' in results) return `_askResult\r\n${results.boolean}\r\n`;
    return [results.vars.join(','), ...results.bindings.map((row) => results.vars.map((v) => csvField(row[v])).join(','))].map((line) => line + '\r\n').join('');
  }
  if (mediaType === RESULTS_TSV) {
    if ('boolean' in results) return `?_askResult\n${results.boolean}\n`;
    return [results.vars.map((v) => `?${v}`).join('\t'), ...results.bindings.map((row) => results.vars.map((v) => tsvTerm(row[v])).join('\t'))].map((line) => line + '\n').join('');
  }
  throw invalid(mediaType, 'not a results format Lodestone writes');
}
