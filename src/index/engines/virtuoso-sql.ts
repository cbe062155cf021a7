/**
 * The SQL that Lodestone keeps in a Virtuoso engine: stored procedures made by `open` (CREATE
 * PROCEDURE replaces), called over HTTP from SPARQL as `<sql:…>` functions by the dba. One HTTP
 * request runs as one Virtuoso transaction, so each procedure call is atomic: a replace deletes,
 * loads (TTLP, TriG), grants and moves the marker together or not at all (tested: a load that fails
 * halfway leaves the graphs as they were). Identifiers here are fixed; every value is a parameter.
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
  // a SPARQL string with a character past ASCII arrives as NVARCHAR, which TTLP does not read
  `create procedure DB.DBA.LODESTONE_UTF8 (in text any)
{
  if (__tag (text) = __tag (N''))
    return charset_recode (text, '_WIDE_', 'UTF-8');
  return text;
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
  delete from DB.DBA.RDF_QUAD where G = iri_to_id ('${MARKERS}') and S = iri_to_id (base);
  if (commit_id is not null)
    DB.DBA.RDF_QUAD_URI_L ('${MARKERS}', base, '${INDEXED_COMMIT}', commit_id);
  return commit_id;
}`,
  // graphs to drop, graphs to load (their TriG), then the marker: last, in the same transaction
  `create procedure DB.DBA.LODESTONE_REPLACE (in reader varchar, in base varchar, in dropped any, in loaded any, in trig varchar, in commit_id varchar)
{
  declare i int;
  for (i := 0; i < length (dropped); i := i + 1)
    {
      delete from DB.DBA.RDF_QUAD where G = iri_to_id (dropped[i], 0);
      DB.DBA.RDF_GRAPH_USER_PERMS_DEL (dropped[i], reader);
    }
  for (i := 0; i < length (loaded); i := i + 1)
    delete from DB.DBA.RDF_QUAD where G = iri_to_id (loaded[i], 0);
  if (length (trig) > 0)
    DB.DBA.TTLP (DB.DBA.LODESTONE_UTF8 (trig), '', '${NOWHERE}', 256);
  for (i := 0; i < length (loaded); i := i + 1)
    DB.DBA.RDF_GRAPH_USER_PERMS_SET (loaded[i], reader, 1);
  if (commit_id is not null)
    DB.DBA.LODESTONE_MARK (base, commit_id);
  return length (dropped) + length (loaded);
}`,
  // a bulk batch: no transaction log, a commit per row (a crash loses it, but there is no marker yet)
  // log_enable outlives the request on Virtuoso's HTTP thread: it is set back, on error too (else
  // later requests served by that thread go unlogged, and a crash loses them: seen with new readers)
  `create procedure DB.DBA.LODESTONE_BULK (in reader varchar, in loaded any, in trig varchar)
{
  declare i int;
  declare exit handler for sqlstate '*' { log_enable (1, 1); resignal; };
  log_enable (2, 1);
  DB.DBA.TTLP (DB.DBA.LODESTONE_UTF8 (trig), '', '${NOWHERE}', 256);
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
      delete from DB.DBA.RDF_QUAD where G = iri_to_id (graphs[i], 0);
      DB.DBA.RDF_GRAPH_USER_PERMS_DEL (graphs[i], reader);
    }
  DB.DBA.LODESTONE_MARK (base, null);
  return length (graphs);
}`,
];
