/**
 * The server's messages a page shows (an RDF error body's title, SPEC §2.4), in Spanish: each English
 * form (src/http/authorize.ts, document-read.ts, html.ts, rdf/sparql-text.ts, documents/) and its
 * Spanish one. The API's error bodies stay as they are; only a Spanish page shows these. A message
 * not listed is shown as it came.
 */
/** How an access mode reads inside a Spanish sentence ("acceso de lectura"). */
const SPANISH_MODES: Record<string, string> = { Read: 'lectura', Write: 'escritura', Append: 'adición', Control: 'control' };

const SPANISH_SERVER_MESSAGES: readonly [RegExp, (...parts: (string | undefined)[]) => string][] = [
  [/^anonymous agents have no any access to (\S+): authenticate with a client certificate$/, (url) => `los agentes anónimos no tienen ningún acceso a ${url}: identifíquese con un certificado de cliente`],
  [/^anonymous agents have no (\w+) access to (\S+): authenticate with a client certificate$/, (mode, url) => `los agentes anónimos no tienen acceso de ${SPANISH_MODES[mode!] ?? mode} a ${url}: identifíquese con un certificado de cliente`],
  [/^(\S+) has no any access to (\S+)$/, (agent, url) => `${agent} no tiene ningún acceso a ${url}`],
  [/^(\S+) has no (\w+) access to (\S+)$/, (agent, mode, url) => `${agent} no tiene acceso de ${SPANISH_MODES[mode!] ?? mode} a ${url}`],
  [/^there is no document at (\S+)$/, (url) => `no hay ningún documento en ${url}`],
  [/^none of the requested media types is available; available: (.*)$/, (types) => `ninguno de los tipos de medio pedidos está disponible; hay: ${types}`],
  [/^there is no static file (.*) \(a page of an older version may name one that is gone: reload it\)$/s, (name) => `no hay ningún archivo estático ${name} (una página de una versión anterior puede nombrar uno que ya no existe: vuelva a cargarla)`],
  [/^the query is not valid SPARQL: line (\d+), column (\d+): expected (.*), got (.*?)(?: \(after (.*)\))?$/s, (line, column, expected, got, after) => `la consulta no es SPARQL válido: línea ${line}, columna ${column}: se esperaba ${expected!.replace(/ or /g, ' o ')}, se encontró ${got}${after === undefined ? '' : ` (después de ${after})`}`],
  [/^the query is not valid SPARQL: (.*)$/s, (detail) => `la consulta no es SPARQL válido: ${detail}`],
  [/^(\S+) is a container that still has documents; delete them first$/, (url) => `${url} es un contenedor que aún tiene documentos: elimínelos primero`],
  [/^the document has changed since the ETag in If-Match was read$/, () => 'el documento ha cambiado desde que se leyó el ETag de If-Match'],
  [/^the ETag in If-Match is not one this server makes: GET the document and send its ETag$/, () => 'el ETag de If-Match no es uno que este servidor haga: lea el documento (GET) y envíe su ETag'],
  [/^the document exists \(If-None-Match\)$/, () => 'el documento ya existe (If-None-Match)'],
  [/^the document does not exist$/, () => 'el documento no existe'],
];

/** `message` in Spanish when its English form is one of the table's, else as it is. */
export function spanishServerMessage(message: string): string {
  for (const [english, spanish] of SPANISH_SERVER_MESSAGES) {
    const match = english.exec(message);
    if (match) return spanish(...match.slice(1));
  }
  return message;
}
