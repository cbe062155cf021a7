/**
 * The SQL that Lodestone keeps in a Virtuoso engine: stored procedures made by `open` (CREATE
 * PROCEDURE replaces), called over HTTP from SPARQL as `<sql:…>` functions by the dba. A call is
 * NOT one transaction (a procedure that fails after writing a quad leaves the quad: tested), so a
 * replace writes the graphs first and the marker last: after a crash the marker names the commit
 * before, some graphs are newer, and replaying the same replace repairs it. Identifiers here are
 * fixed; every value is a parameter.
 * Bulky values (TriG, lists of graphs) come as fields of the same request, read with http_param:
 * Virtuoso's SPARQL compiler takes ~5 s a megabyte of string literal, http_param nothing.
 */

/** The system graph of markers (one triple per dataspace): no reader may read it. */
export const MARKERS = 'urn:x-lodestone:index-markers';
/** The marker's predicate; its object is the commit ('' for an empty branch). */
export const INDEXED_COMMIT = 'urn:x-lodestone:indexed-commit';
/** TTLP's default graph: never written, as every triple of the TriG Lodestone sends is in a GRAPH block. */
const NOWHERE = 'urn:x-lodestone:nowhere';

/**
 * The procedures, in the order they are made. Each dataspace has a reader (a SQL user with
 * SPARQL_SELECT only) whose graph permissions (Virtuoso's graph-level security) are exactly the
 * dataspace's graphs: its default graph with no FROM is their union and `GRAPH ?g` ranges over them.
 */
export const PROCEDURES: readonly string[] = [
  // a request field (TTLP reads UTF-8 bytes; a wide string is recoded), '' when absent
  `create procedure DB.DBA.LODESTONE_FIELD (in name varchar)
{
  declare text any;
  text := coalesce (http_param (name), '');
  if (__tag (text) = __tag (N''))
    return charset_recode (text, '_WIDE_', 'UTF-8');
  return text;
}`,
  // the lines of a request field (IRIs, one a line), taken as they are (split_and_decode would
  // %-decode them); a form's fields end their lines with CRLF (FormData makes every LF one)
  `create procedure DB.DBA.LODESTONE_LINES (in name varchar)
{
  declare text, lines any;
  declare at int;
  text := DB.DBA.LODESTONE_FIELD (name);
  lines := vector ();
  while (length (text) > 0)
    {
      at := strchr (text, '\n');
      if (at is null)
        at := length (text);
      if (at > 0 and aref (text, at - 1) = 13)
        at := at - 1;
      if (at > 0)
        lines := vector_concat (lines, vector (subseq (text, 0, at)));
      if (at < length (text) and aref (text, at) = 13)
        at := at + 1;
      if (at < length (text))
        text := subseq (text, at + 1);
      else
        text := '';
    }
  return lines;
}`,
  // a graph's quads, found by the indexes' prefixes: its subjects (the GS bitmap), their predicates
  // (SP), then the rows by the primary key (P, S, O, G). A delete by G alone scans the table, and
  // by G and S nearly so (measured at 2 M triples: 114 and 50 ms a graph, and growing; 1–3 ms this way)
  `create procedure DB.DBA.LODESTONE_DROP (in graph varchar)
{
  declare gid, subjects, predicates any;
  declare i, j int;
  gid := iri_to_id (graph, 0);
  if (gid is null)
    return 0;
  subjects := (select vector_agg (S) from (select distinct S from DB.DBA.RDF_QUAD table option (index RDF_QUAD_GS, index_only) where G = gid) x);
  for (i := 0; i < length (subjects); i := i + 1)
    {
      predicates := (select vector_agg (P) from (select distinct P from DB.DBA.RDF_QUAD table option (index RDF_QUAD_SP, index_only) where S = subjects[i]) y);
      for (j := 0; j < length (predicates); j := j + 1)
        delete from DB.DBA.RDF_QUAD table option (index RDF_QUAD) where P = predicates[j] and S = subjects[i] and G = gid;
    }
  return length (subjects);
}`,
  // a reader's permission on a graph, set only when it is not already (setting it costs ~4 ms)
  `create procedure DB.DBA.LODESTONE_GRANT (in graph varchar, in reader varchar)
{
  if (exists (select 1 from DB.DBA.RDF_GRAPH_USER, DB.DBA.SYS_USERS
      where RGU_GRAPH_IID = iri_to_id (graph, 0) and RGU_USER_ID = U_ID and U_NAME = reader and RGU_PERMISSIONS = 1))
    return 0;
  DB.DBA.RDF_GRAPH_USER_PERMS_SET (graph, reader, 1);
  return 1;
}`,
  // Unauthenticated SPARQL reads nothing (it would see every document of every dataspace); a
  // reader's permissions cannot be narrower than these (Virtuoso refuses: RDF99).
  `create procedure DB.DBA.LODESTONE_OPEN (in reader varchar, in secret varchar, in base varchar)
{
  DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 0);
  declare state, message varchar;
  if (not exists (select 1 from DB.DBA.SYS_USERS where U_NAME = reader))
    {
      DB.DBA.USER_CREATE (reader, secret);
      state := '00000';
      exec (sprintf ('grant SPARQL_SELECT to "%s"', reader), state, message);
      if (state <> '00000' and state <> '42000')
        signal (state, message);
    }
  else
    USER_SET_PASSWORD (reader, secret);
  DB.DBA.RDF_DEFAULT_USER_PERMS_SET (reader, 0);
  -- Virtuoso's description of its own SPARQL service and its copy of the LDP vocabulary, which every
  -- user may read whatever the permissions say (RDF99 refuses a narrower one): gone from an engine
  -- that holds Lodestone's indexes
  DB.DBA.LODESTONE_DROP ('http://localuriqaserver/sparql');
  DB.DBA.LODESTONE_DROP ('http://www.w3.org/ns/ldp#');
  return DB.DBA.LODESTONE_MARKER (base);
}`,
  `create procedure DB.DBA.LODESTONE_MARKER (in base varchar)
{
  declare commit_id varchar;
  commit_id := null;
  for (select __ro2sq (O) as c from DB.DBA.RDF_QUAD where G = iri_to_id ('${MARKERS}', 0) and S = iri_to_id (base, 0) and P = iri_to_id ('${INDEXED_COMMIT}', 0)) do
    commit_id := cast (c as varchar);
  return commit_id;
}`,
  `create procedure DB.DBA.LODESTONE_MARK (in base varchar, in commit_id varchar)
{
  -- by the primary key's prefix (P, S): G and S alone may scan the table
  delete from DB.DBA.RDF_QUAD where P = iri_to_id ('${INDEXED_COMMIT}') and S = iri_to_id (base) and G = iri_to_id ('${MARKERS}');
  if (commit_id is not null)
    DB.DBA.RDF_QUAD_URI_L ('${MARKERS}', base, '${INDEXED_COMMIT}', commit_id);
  return commit_id;
}`,
  // graphs to drop, graphs to load (their TriG), then the marker: last
  `create procedure DB.DBA.LODESTONE_REPLACE (in reader varchar, in base varchar, in commit_id varchar)
{
  declare i int;
  declare dropped, loaded, trig any;
  dropped := DB.DBA.LODESTONE_LINES ('dropped');
  loaded := DB.DBA.LODESTONE_LINES ('loaded');
  trig := DB.DBA.LODESTONE_FIELD ('trig');
  for (i := 0; i < length (dropped); i := i + 1)
    {
      DB.DBA.LODESTONE_DROP (dropped[i]);
      DB.DBA.RDF_GRAPH_USER_PERMS_DEL (dropped[i], reader);
    }
  for (i := 0; i < length (loaded); i := i + 1)
    DB.DBA.LODESTONE_DROP (loaded[i]);
  if (length (trig) > 0)
    DB.DBA.TTLP (trig, '', '${NOWHERE}', 256);
  for (i := 0; i < length (loaded); i := i + 1)
    DB.DBA.LODESTONE_GRANT (loaded[i], reader);
  if (commit_id is not null)
    DB.DBA.LODESTONE_MARK (base, commit_id);
  return length (dropped) + length (loaded);
}`,
  // a bulk batch: no transaction log, a commit per row (a crash loses it, but there is no marker yet)
  // log_enable outlives the request on Virtuoso's HTTP thread: it is set back, on error too (else
  // later requests served by that thread go unlogged, and a crash loses them: seen with new readers)
  `create procedure DB.DBA.LODESTONE_BULK (in reader varchar)
{
  declare i int;
  declare loaded any;
  declare exit handler for sqlstate '*' { log_enable (1, 1); resignal; };
  loaded := DB.DBA.LODESTONE_LINES ('loaded');
  log_enable (2, 1);
  DB.DBA.TTLP (DB.DBA.LODESTONE_FIELD ('trig'), '', '${NOWHERE}', 256);
  for (i := 0; i < length (loaded); i := i + 1)
    DB.DBA.RDF_GRAPH_USER_PERMS_SET (loaded[i], reader, 1);
  log_enable (1, 1);
  return length (loaded);
}`,
  // after a bulk load: its graphs made durable, then the marker (logged)
  `create procedure DB.DBA.LODESTONE_SEAL (in base varchar, in commit_id varchar)
{
  exec ('checkpoint');
  return DB.DBA.LODESTONE_MARK (base, commit_id);
}`,
  // every graph the reader may read is the dataspace's: dropped with the marker
  `create procedure DB.DBA.LODESTONE_CLEAR (in reader varchar, in base varchar)
{
  declare graphs any;
  declare i int;
  graphs := (select vector_agg (id_to_iri (RGU_GRAPH_IID)) from DB.DBA.RDF_GRAPH_USER, DB.DBA.SYS_USERS
    where RGU_USER_ID = U_ID and U_NAME = reader and RGU_PERMISSIONS > 0 and iri_id_num (RGU_GRAPH_IID) <> 0);
  for (i := 0; i < length (graphs); i := i + 1)
    {
      DB.DBA.LODESTONE_DROP (graphs[i]);
      DB.DBA.RDF_GRAPH_USER_PERMS_DEL (graphs[i], reader);
    }
  DB.DBA.LODESTONE_MARK (base, null);
  return length (graphs);
}`,
];
