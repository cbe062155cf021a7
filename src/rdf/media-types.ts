/**
 * The media types Lodestone reads, writes, sends and asks for, each named once (RFC 6838): the RDF
 * formats (their table is formats.ts), SPARQL results (sparql-results.ts), and the few others.
 * Lint refuses a media-type literal anywhere else in src, so a type is spelled in one place. A
 * leaf: it imports nothing, so every module of src/rdf may use it without a cycle. Pure.
 */

// RDF formats (SPEC §4.1)
export const TURTLE = 'text/turtle';
export const NTRIPLES = 'application/n-triples';
export const RDFXML = 'application/rdf+xml';
export const JSONLD = 'application/ld+json';
/** Compacted JSON-LD: the type plus its profile (JSON-LD 1.1 §9.3), a representation of its own (ETag, cache). */
export const JSONLD_COMPACTED = 'application/ld+json; profile="http://www.w3.org/ns/json-ld#compacted"';
export const NQUADS = 'application/n-quads';
export const TRIG = 'application/trig';
/** An HTML form (HTML §4.10.21.7): a signup, a SPARQL form, and RDF/POST, which is sent as one. */
export const FORM = 'application/x-www-form-urlencoded';
/** RDF/POST (https://www.lsrn.org/semweb/rdfpost/) travels as a form. */
export const RDFPOST = FORM;
/** Plain text: the old N-Triples type, which rdflib 6 and raptor still send; a diff; a message. */
export const PLAIN = 'text/plain';

// SPARQL 1.1 Protocol (§2.1.2, §2.2.2) and Query Results (JSON, XML, CSV and TSV)
export const SPARQL_QUERY = 'application/sparql-query';
export const SPARQL_UPDATE = 'application/sparql-update';
export const RESULTS_JSON = 'application/sparql-results+json';
export const RESULTS_XML = 'application/sparql-results+xml';
export const RESULTS_CSV = 'text/csv';
export const RESULTS_TSV = 'text/tab-separated-values';

/** A TimeMap (RFC 7089 §5.1, RFC 6690). */
export const LINK_FORMAT = 'application/link-format';

// Pages and their assets
/** A web page: Lodestone's own pages, and the pages whose JSON-LD the proxy reads. */
export const HTML = 'text/html';
export const XHTML = 'application/xhtml+xml';
export const CSS = 'text/css';
export const JAVASCRIPT = 'text/javascript';
/** The pages' icon: an SVG under static/, and the ICO file browsers ask for at /favicon.ico (IANA's name for it). */
export const SVG = 'image/svg+xml';
export const ICON = 'image/vnd.microsoft.icon';

// Others
export const JSON_TYPE = 'application/json';
export const XML = 'application/xml';
export const MULTIPART_FORM = 'multipart/form-data';
export const OCTET_STREAM = 'application/octet-stream';

/** RFC 9110 §8.3.1: a media type's syntax, type "/" subtype, both tokens (lower-cased, without parameters). */
export const MEDIA_TYPE_SYNTAX = /^[a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+$/;

// Uploaded files (issue 28): the images a browser shows in place, whose first bytes are checked
export const PNG = 'image/png';
export const JPEG = 'image/jpeg';
export const GIF = 'image/gif';
export const WEBP = 'image/webp';
export const AVIF = 'image/avif';
/** A client certificate and its key (RFC 7292), as the admin endpoint hands them out. */
export const PKCS12 = 'application/x-pkcs12';
// git's smart HTTP protocol (gitprotocol-http(5)): what replicas fetch the repositories with
export const GIT_ADVERTISEMENT = 'application/x-git-upload-pack-advertisement';
export const GIT_REQUEST = 'application/x-git-upload-pack-request';
export const GIT_RESULT = 'application/x-git-upload-pack-result';
/** A replica's answer from the primary: a line `<HEAD> <commits>`, then a pack of what they hold (http/git-http.ts). */
export const GIT_HEAD_PACK = 'application/x-lodestone-head-pack';

/** GitHub's REST API asks for its own JSON type (docs.github.com, "media types"). */
export const GITHUB_JSON = 'application/vnd.github+json';
