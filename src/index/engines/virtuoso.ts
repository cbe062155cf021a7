/**
 * Virtuoso Open Source 7 as the engine of an index on a SPARQL server, over HTTP only: SPARQL at
 * /sparql-auth (Digest, RFC 7616), SQL as stored procedures called from SPARQL (virtuoso-sql.ts).
 * - Dataspace: one reader per dataspace, a SQL user with SPARQL_SELECT only, whose graph-level
 *   permissions are exactly the dataspace's graphs (granted with each load, revoked with each drop).
 *   Queries run as that reader with no FROM: Virtuoso makes the default graph the union of the graphs
 *   it may read, and `GRAPH ?g` ranges over them; another dataspace's graphs, the marker graph and
 *   Virtuoso's system graphs (virtrdf#, ~2,500 triples) are not among them. Unauthenticated SPARQL
 *   on the engine reads no graph (LODESTONE_OPEN restricts 'nobody'), but can still call bif:
 *   functions (bif:id_to_iri reads the IRI dictionary): Virtuoso's ports belong on loopback or a
 *   private network, as Lodestone's tests start it.
 * - Replace: one procedure call per batch: drop, load the batch as TriG (TTLP), grant, then the
 *   marker (a triple in urn:x-lodestone:index-markers). Not atomic (Virtuoso commits as it goes), so
 *   the marker is last: it never names a commit whose graphs are not all in place; a replay repairs.
 * - Bulk load: batches of TriG loaded without the transaction log, a checkpoint, then the marker.
 * - Abort: the signal closes the request, and Virtuoso stops the query (seen in status(''): its
 *   threads are gone within seconds of the disconnect); each query also carries Virtuoso's own
 *   limit, `timeout` = `queryTimeoutMs`, past which it stops and says so (S1TAT: an error here,
 *   never the part of the answer it sends).
 * The dba's credentials come from the endpoint URL's userinfo and go only into Digest hashes; a
 * reader's password is an HMAC of the dba's and the dataspace's base.
 */
import { createHash, createHmac } from 'node:crypto';
import { LodestoneError } from '../../errors.js';
import { NTRIPLES, RESULTS_JSON } from '../../rdf/media-types.js';
import type { Engine, EngineAnswer, EngineDataset, EngineSpace, GraphReplacement } from '../engine.js';
import { engineError, splitEndpoint } from '../engine.js';
import { forVirtuoso } from './virtuoso-query.js';
import { digestFetch } from './digest-fetch.js';
import { PROCEDURES } from './virtuoso-sql.js';

export interface VirtuosoOptions {
  /** The Virtuoso HTTP server with the dba's credentials, e.g. http://dba:secret@127.0.0.1:8890/ */
  endpoint: string;
  /** Virtuoso's own limit on a query's execution (default 60 s). */
  queryTimeoutMs?: number;
  /** TriG per request when bulk loading (default 4 MiB). */
  bulkBatchBytes?: number;
}

type Fetch = (url: URL, init: RequestInit) => Promise<Response>;

/** The fewest result rows Virtuoso must allow (a dump is one row a triple). */
const MIN_RESULT_ROWS = 1_000_000_000;
/** Bulk batches sent at once (measured on 2 cores: see bench/engine-virtuoso.ts). */
const BULK_IN_FLIGHT = 2;

/**
 * Virtuoso calls an SQL built-in for a function IRI `bif:…` and a DB.DBA procedure for `sql:…`, as
 * the reader: `bif:http_get` fetches any URL from the engine's host, `bif:id_to_iri` reads IRIs of
 * every dataspace from its dictionary, `bif:exec` runs SQL. No other IRI reaches SQL (an unknown
 * function is looked up as DB.DBA.<IRI>, where the reader may run nothing), and Virtuoso reads no
 * \u escape in an IRI, so the schemes' names in the text (prefix declarations, BASE, prefixed
 * names) are what gets there.
 */
const VIRTUOSO_FUNCTIONS = /(?<![\p{L}\p{N}_.-])(?:bif|sql):/iu;

/** A SPARQL string literal (SPARQL 1.1 §19.7: ECHAR); JSON's escapes are a subset. */
const literal = (text: string): string => JSON.stringify(text);
/** Graph names one a line (an IRI holds no line break: RFC 3987). */
const lines = (items: readonly string[]): string => items.map((item) => `${item}\n`).join('');

export class VirtuosoEngine implements Engine {
  readonly kind = 'virtuoso' as const;
  readonly keepsMarker = true;
  readonly transactional = false;
  private readonly root: URL;
  private readonly password: string;
  private readonly dba: Fetch;
  private readonly readers = new Map<string, { name: string; fetch: Fetch }>();
  private readonly queryTimeoutMs: number;
  private readonly bulkBatchBytes: number;
  private procedures: Promise<void> | undefined;

  constructor(options: VirtuosoOptions) {
    const { root, credentials } = splitEndpoint(options.endpoint);
    if (!credentials?.username || !credentials.password) {
      throw new LodestoneError('BadRequest', 'a virtuoso index needs the dba credentials in its endpoint URL: virtuoso:http://dba:PASSWORD@host:8890/');
    }
    const { username } = credentials;
    this.password = credentials.password;
    root.pathname = '/';
    this.root = root;
    this.dba = digestFetch({ username, password: this.password });
    this.queryTimeoutMs = options.queryTimeoutMs ?? 60_000;
    this.bulkBatchBytes = options.bulkBatchBytes ?? 4 * 1024 * 1024;
  }

  async open(space: EngineSpace): Promise<string | null | undefined> {
    this.procedures ??= this.makeProcedures();
    await this.procedures.catch((error: unknown) => {
      this.procedures = undefined; // asked again at the next open
      throw error;
    });
    const reader = this.reader(space);
    const secret = this.secret(space);
    const marker = await this.call(`<sql:LODESTONE_OPEN>(${literal(reader.name)}, ${literal(secret)}, ${literal(space.base)})`);
    return marker === undefined ? undefined : marker === '' ? null : marker;
  }

  async replace(space: EngineSpace, graphs: readonly GraphReplacement[], commit: string | undefined): Promise<void> {
    // an empty graph is no quads: dropped (Virtuoso's TriG reader refuses an empty block)
    const dropped = graphs.filter((g) => !g.ntriples).map((g) => g.graph);
    const loaded = graphs.filter((g) => g.ntriples);
    await this.call(`<sql:LODESTONE_REPLACE>(${literal(this.reader(space).name)}, ${literal(space.base)}, ${literal(commit ?? '')})`, {
      dropped: lines(dropped),
      loaded: lines(loaded.map((g) => g.graph)),
      trig: loaded.map((g) => `<${g.graph}> {\n${g.ntriples}}\n`).join(''),
    });
  }

  async clear(space: EngineSpace): Promise<void> {
    await this.call(`<sql:LODESTONE_CLEAR>(${literal(this.reader(space).name)}, ${literal(space.base)})`);
  }

  async bulkLoad(space: EngineSpace, graphs: AsyncIterable<GraphReplacement>, commit: string | undefined): Promise<void> {
    const reader = literal(this.reader(space).name);
    const loading = new Set<Promise<unknown>>();
    let failure: unknown;
    let names: string[] = [];
    let trig: string[] = [];
    let bytes = 0;
    // BULK_IN_FLIGHT batches at once: Virtuoso loads one while the next is read and sent
    const send = async (): Promise<void> => {
      const batch = this.call(`<sql:LODESTONE_BULK>(${reader})`, { loaded: lines(names), trig: trig.join('') }).catch((error: unknown) => {
        failure ??= error;
      });
      loading.add(batch);
      void batch.finally(() => loading.delete(batch));
      [names, trig, bytes] = [[], [], 0];
      while (loading.size >= BULK_IN_FLIGHT) await Promise.race(loading);
      if (failure) throw failure;
    };
    for await (const g of graphs) {
      if (!g.ntriples) continue;
      names.push(g.graph);
      trig.push(`<${g.graph}> {\n${g.ntriples}}\n`);
      bytes += g.ntriples.length;
      if (bytes >= this.bulkBatchBytes || names.length >= 2000) await send();
    }
    if (names.length > 0) await send();
    await Promise.all(loading);
    if (failure) throw failure;
    // the graphs went in without the transaction log: a checkpoint makes them durable before the marker is
    await this.call(`<sql:LODESTONE_SEAL>(${literal(space.base)}, ${literal(commit ?? '')})`);
  }


  async query(space: EngineSpace, query: string, dataset: EngineDataset, graphResult: boolean, signal: AbortSignal): Promise<EngineAnswer> {
    if (VIRTUOSO_FUNCTIONS.test(query)) {
      throw new LodestoneError('BadQuery', 'this dataspace\'s index is a Virtuoso, which runs its own SQL for IRIs in the bif: and sql: schemes: a query naming them is not run (bif: or sql: in a string counts too)');
    }
    const form = fields({ query: forVirtuoso(query), timeout: String(this.queryTimeoutMs) });
    // SPARQL 1.1 Protocol §2.1.4: the dataset given overrides the query's; the union needs none (the reader's graphs)
    if (!dataset.union) {
      for (const g of dataset.defaultGraphs) form.append('default-graph-uri', g);
      for (const g of dataset.namedGraphs) form.append('named-graph-uri', g);
    }
    const text = await this.post(this.reader(space).fetch, form, graphResult ? NTRIPLES : RESULTS_JSON, signal);
    if (graphResult) return { kind: 'graph', ntriples: text };
    return { kind: 'results', json: commonTerms(text) };
  }

  async dump(space: EngineSpace): Promise<string> {
    const form = fields({ query: 'SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }' });
    const json = JSON.parse(commonTerms(await this.post(this.reader(space).fetch, form, RESULTS_JSON))) as { results: { bindings: Array<Record<'g' | 's' | 'p' | 'o', JsonTerm>> } };
    return json.results.bindings.map((row) => `${nq(row.s)} ${nq(row.p)} ${nq(row.o)} ${nq(row.g)} .\n`).join('');
  }

  async close(): Promise<void> {
    this.readers.clear();
  }

  private async makeProcedures(): Promise<void> {
    // Virtuoso cuts every SPARQL answer at [SPARQL] ResultSetMaxRows (10,000 in Debian's ini) and
    // says nothing: an index that answers less than all is refused at the start
    const rows = Number(await this.call('bif:cfg_item_value(bif:virtuoso_ini_path(), "SPARQL", "ResultSetMaxRows")'));
    if (rows > 0 && rows < MIN_RESULT_ROWS) {
      throw engineError(`the index's Virtuoso at ${this.root.host} cuts SPARQL answers at ${rows} rows without saying so: set ResultSetMaxRows = ${MIN_RESULT_ROWS} in the [SPARQL] section of its virtuoso.ini`);
    }
    for (const text of PROCEDURES) await this.call(`bif:exec(${literal(text)})`);
  }

  /** The reader of a dataspace: a name and a password derived from its base (no state kept in the engine but the user). */
  private reader(space: EngineSpace): { name: string; fetch: Fetch } {
    let reader = this.readers.get(space.base);
    if (!reader) {
      const name = `LODESTONE_${createHash('sha256').update(space.base).digest('hex').slice(0, 24)}`;
      reader = { name, fetch: digestFetch({ username: name, password: this.secret(space) }) };
      this.readers.set(space.base, reader);
    }
    return reader;
  }

  private secret(space: EngineSpace): string {
    return createHmac('sha256', this.password).update(`lodestone reader ${space.base}`).digest('hex').slice(0, 32);
  }

  /** Calls an SQL function as the dba, in one request with `data` as its fields; returns its value as a string. */
  private async call(expression: string, data: Record<string, string> = {}): Promise<string | undefined> {
    const form = fields({ query: `SELECT (${expression} AS ?r) {}`, ...data });
    const json = JSON.parse(await this.post(this.dba, form, RESULTS_JSON)) as { results: { bindings: Array<{ r?: { value: string } }> } };
    return json.results.bindings[0]?.r?.value;
  }

  private async post(fetch: Fetch, form: FormData, accept: string, signal?: AbortSignal): Promise<string> {
    let response: Response;
    try {
      response = await fetch(new URL('sparql-auth', this.root), {
        method: 'POST',
        headers: { accept },
        body: form,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw engineError(`the index's Virtuoso at ${this.root.host} did not answer: ${(error as Error).message}`);
    }
    const text = await response.text();
    // an "anytime" query past its timeout answers 200 with what it found so far: never an answer here
    if (response.headers.get('x-sql-state') === 'S1TAT') {
      throw new LodestoneError('QueryTimeout', `the query ran past the index's timeout of ${this.queryTimeoutMs / 1000} s and was stopped`);
    }
    if (!response.ok) {
      // Virtuoso's message echoes the whole request after its first line: only the first line is kept
      const first = (text.split('\n')[0] ?? '').slice(0, 300);
      if (response.status === 400 && /^Virtuoso 37000/.test(first)) throw new LodestoneError('BadQuery', `the index's SPARQL server refused the query: ${first}`);
      throw engineError(`the index's Virtuoso answered ${response.status}: ${(text.split('\n')[0] ?? '').slice(0, 300)}`);
    }
    return text;
  }
}

/**
 * Request fields as multipart/form-data (RFC 7578), which Virtuoso reads as it reads a form: the
 * text is sent as it is, where URL-encoding a batch of N-Triples took ~0.3 s a megabyte
 * (URLSearchParams) and doubled its size. (Virtuoso 7.2 never answers an application/sparql-query POST.)
 */
function fields(values: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(values)) form.append(name, value);
  return form;
}

interface JsonTerm {
  type: string;
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}

/**
 * Terms of Virtuoso's JSON results written as other engines write them (SPARQL 1.1 Query Results
 * JSON §3.2.2): a blank node `nodeID://b10006` is labelled `b10006`; a boolean `"1"` is `"true"`
 * (its N-Triples says "true"); an xsd:string is a plain literal (RDF 1.1 §3.3). The patterns are
 * Virtuoso's exact layout, and cannot occur inside a JSON string, where every `"` is escaped.
 */
function commonTerms(json: string): string {
  return json
    .replace(/("type": "bnode", "value": ")nodeID:\/\//g, '$1')
    .replace(/("datatype": "http:\/\/www\.w3\.org\/2001\/XMLSchema#boolean", "value": ")([01])"/g, (_, head: string, bit: string) => `${head}${bit === '1' ? 'true' : 'false'}"`)
    .replace(/"type": "typed-literal", "datatype": "http:\/\/www\.w3\.org\/2001\/XMLSchema#string", /g, '"type": "literal", ');
}

/** One term of a JSON result as N-Quads (dump). */
function nq(t: JsonTerm): string {
  if (t.type === 'uri') return `<${t.value}>`;
  if (t.type === 'bnode') return `_:${t.value}`;
  const lexical = JSON.stringify(t.value); // JSON's escapes are N-Triples' ECHAR and UCHAR
  if (t['xml:lang']) return `${lexical}@${t['xml:lang']}`;
  return t.datatype && t.datatype !== 'http://www.w3.org/2001/XMLSchema#string' ? `${lexical}^^<${t.datatype}>` : lexical;
}
