/**
 * The stalls section's work priced by the requester (issue 25): 16 loops of anonymous signups from 16
 * loopback addresses, and at the same time client certificates presented on new connections from
 * addresses of their own: certificates naming remote WebIDs (served by a loopback origin in this
 * process, with their keys), the certificates the signups hand out (local WebIDs) and a certificate
 * naming 1,000 remote WebIDs, each more than once. Returns what the server answered, for the table.
 */
import { createServer, type Server } from 'node:http';
import { Agent, request, type AgentOptions } from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { generateKey, rsaPublicKey, selfSignedCertificate } from '../src/auth/certificates.js';

export interface RequesterWork {
  /** Status of every signup. */
  signups: number[];
  /** Status of every certificate presented. */
  presented: number[];
  /** WebID documents the origin was asked for because of the 1,000-URI certificate. */
  manyFetched: number;
}

const CERT = 'http://www.w3.org/ns/auth/cert#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** One request on a connection of its own with `tls` (a certificate, or none), from `from`: status and body. */
function sendOnce(url: string, method: string, tls: AgentOptions, from: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve) => {
    const agent = new Agent({ keepAlive: false, rejectUnauthorized: false, localAddress: from, ...tls });
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    req.end(body);
  });
}

/** The inputs, ready to be sent: the origin of the remote WebIDs is listening; close() stops it. */
export async function requesterInputs(base: string, quick: boolean): Promise<{ run(): Promise<RequesterWork>; close(): Promise<void> }> {
  const keys = await Promise.all(Array.from({ length: quick ? 4 : 8 }, () => generateKey()));
  let manyFetched = 0;
  const origin: Server = createServer((req, res) => {
    const card = /^\/card-(\d+)$/.exec(req.url ?? '');
    const key = card && keys[Number(card[1])];
    if (req.url?.startsWith('/many-')) manyFetched++;
    if (!key) return void res.writeHead(404).end();
    const { modulus, exponent } = rsaPublicKey(key)!;
    res.writeHead(200, { 'Content-Type': 'text/turtle' }).end(`<#me> <${CERT}key> [ <${CERT}modulus> "${modulus}"^^<${XSD}hexBinary> ; <${CERT}exponent> ${exponent} ] .`);
  });
  origin.listen(0, '127.0.0.1');
  await once(origin, 'listening');
  const at = (path: string) => `http://127.0.0.1:${(origin.address() as AddressInfo).port}${path}`;
  const remote = keys.map((keyPem, i) => ({ cert: selfSignedCertificate(keyPem, { commonName: `remote ${i}`, webId: at(`/card-${i}#me`) }), key: keyPem }));
  const many = { cert: selfSignedCertificate(keys[0]!, { commonName: 'many', webId: Array.from({ length: 1000 }, (_, i) => at(`/many-${i}#me`)) }), key: keys[0]! };

  async function run(): Promise<RequesterWork> {
    const signups: number[] = [];
    const presented: number[] = [];
    const issued: AgentOptions[] = [];
    const present = async (tls: AgentOptions, from: string) => presented.push((await sendOnce(`${base}stalls/`, 'GET', tls, from)).status);
    const rounds = quick ? 1 : 3;
    const signing = Array.from({ length: 16 }, async (_, i) => {
      for (let n = 0; n < rounds; n++) {
        const res = await sendOnce(`${base}admin/sign%20up`, 'POST', {}, `127.0.0.${10 + i}`, { 'Content-Type': 'application/x-www-form-urlencoded' }, `name=Bench+${i}-${n}&email=bench${i}-${n}%40example.org&password=bench+password`);
        signups.push(res.status);
        if (res.status === 201) issued.push({ pfx: res.body, passphrase: 'bench password' });
      }
    });
    const verifying = (async () => {
      for (let round = 0; round < rounds + 1; round++) {
        await Promise.all([
          ...remote.map((tls, i) => present(tls, `127.0.0.${100 + i}`)),
          present(many, `127.0.0.${150 + round}`),
          ...issued.splice(0).map((tls, i) => present(tls, `127.0.0.${160 + (i % 16)}`)),
        ]);
      }
    })();
    await Promise.all([...signing, verifying]);
    await Promise.all(issued.map((tls, i) => present(tls, `127.0.0.${160 + (i % 16)}`))); // the last signups' certificates
    return { signups, presented, manyFetched };
  }
  return { run, close: () => new Promise((resolve) => origin.close(() => resolve())) };
}
