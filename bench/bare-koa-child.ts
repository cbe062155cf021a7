/**
 * Baseline servers for the HTTP sections, in a child process like the server they are compared
 * with: a bare Koa handler that returns fixed bytes (GET baseline), and one that runs the SPARQL
 * query on an in-process Oxigraph store (SPARQL baseline). Prints `ready` when listening.
 *   bare-koa-child.ts <port> <pem file, or - for plain HTTP> <body file> <type> [<N-Quads file> or -] [<headers file>]
 * A headers file (JSON) gives the GET baseline the very headers Lodestone answered with, so both
 * send the same bytes; without one it sends the body with an ETag and its Content-Type.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import Koa from 'koa';
import oxigraph from 'oxigraph';

const [port, pemFile, bodyFile, type, ntriplesFile, headersFile] = process.argv.slice(2) as [string, string, string, string, string | undefined, string | undefined];
const body = readFileSync(bodyFile);
const store = new oxigraph.Store();
if (ntriplesFile && ntriplesFile !== '-') store.load(readFileSync(ntriplesFile), { format: 'application/n-quads' });
const headers: Record<string, string> | undefined = headersFile ? JSON.parse(readFileSync(headersFile, 'utf8')) : undefined;
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/sparql') {
    ctx.type = 'application/sparql-results+json';
    ctx.body = store.query(String(ctx.query.query), { results_format: 'application/sparql-results+json', use_default_graph_as_union: true }) as string;
    return;
  }
  if (headers) ctx.set(headers);
  else {
    ctx.set('ETag', '"fixed"');
    ctx.type = type;
  }
  ctx.body = body;
});
const listening = () => process.stdout.write('ready\n');
process.on('SIGTERM', () => process.exit(0)); // an orderly exit: a --cpu-prof profile is written
if (pemFile === '-') createHttpServer(app.callback()).listen(Number(port), '127.0.0.1', listening);
else {
  const pem = readFileSync(pemFile, 'utf8');
  // the same TLS settings as lodestone serve: ask for a client certificate, do not require one
  createServer({ cert: pem, key: pem, requestCert: true, rejectUnauthorized: false }, app.callback()).listen(Number(port), '127.0.0.1', listening);
}
