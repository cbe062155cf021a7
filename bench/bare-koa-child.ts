/**
 * Baseline servers for the HTTP section, in a child process like the server they are compared
 * with: a bare Koa handler over HTTPS that returns fixed bytes (GET baseline), and one that runs
 * the SPARQL query on an in-process Oxigraph store (SPARQL baseline). Prints `ready` when listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';
import oxigraph from 'oxigraph';

const [port, pemFile, bodyFile, type, ntriplesFile] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const pem = readFileSync(pemFile, 'utf8');
const body = readFileSync(bodyFile);
const store = new oxigraph.Store();
if (ntriplesFile) store.load(readFileSync(ntriplesFile), { format: 'application/n-quads' });
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/sparql') {
    ctx.type = 'application/sparql-results+json';
    ctx.body = store.query(String(ctx.query.query), { results_format: 'application/sparql-results+json', use_default_graph_as_union: true }) as string;
    return;
  }
  ctx.set('ETag', '"fixed"');
  ctx.type = type;
  ctx.body = body;
});
// the same TLS settings as lodestone serve: ask for a client certificate, do not require one
createServer({ cert: pem, key: pem, requestCert: true, rejectUnauthorized: false }, app.callback()).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
