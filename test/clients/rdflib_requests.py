"""Reads and writes a Lodestone document with Python rdflib and requests, as a user would.

Run with Debian's interpreter (apt-get install python3-rdflib python3-requests):

    /usr/bin/python3 rdflib_requests.py read URL CERT
    /usr/bin/python3 rdflib_requests.py roundtrip URL CERT
    /usr/bin/python3 rdflib_requests.py patch URL CERT

CERT is a PEM file holding the client certificate and its key (requests' cert=); the server's
self-signed certificate is not verified (verify=False). Each command prints one JSON value on
standard output for the test that runs it (test/clients-python.test.ts) to check.

read: GETs the document in every RDF format Lodestone serves and parses each with rdflib from the
text requests decoded (so the charset the server names matters), comparing each graph with the
N-Triples one with rdflib.compare.isomorphic.

roundtrip: for each format rdflib writes, GETs the document, adds one triple, serialises the graph
in that format and PUTs it back with If-Match (the ETag read) and the Accept of the read (an ETag
holds for the representation it was read in), then reads the stored document back as N-Triples
and compares it, isomorphic, with what was sent; a second PUT with the now stale ETag gets 412.

patch: PATCHes one DELETE/INSERT ... WHERE update with If-Match and reads the result back.
"""
import json
import sys

import rdflib
import requests
import urllib3
from rdflib.compare import isomorphic

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

EX = rdflib.Namespace('http://example.org/ns#')
COMPACTED = 'application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"'

# (Accept, rdflib format): every RDF format Lodestone serves.
FORMATS = [
    ('application/n-triples', 'nt'),
    ('text/turtle', 'turtle'),
    ('application/rdf+xml', 'xml'),
    ('application/ld+json', 'json-ld'),
    (COMPACTED, 'json-ld'),
    ('application/n-quads', 'nquads'),
    ('application/trig', 'trig'),
    ('text/plain', 'nt'),
]
DATASETS = ('nquads', 'trig')


def get(url, cert, accept):
    response = requests.get(url, headers={'Accept': accept}, cert=cert, verify=False)
    if response.status_code != 200:
        raise SystemExit(f'GET {url} as {accept}: {response.status_code} {response.text}')
    return response


def parse(text, fmt, url):
    """The triples of a representation as one rdflib Graph (a dataset's graphs merged)."""
    if fmt in DATASETS:
        dataset = rdflib.ConjunctiveGraph()
        dataset.parse(data=text, format=fmt, publicID=url)
        graph = rdflib.Graph()
        for triple in dataset.triples((None, None, None)):
            graph.add(triple)
        return graph
    return rdflib.Graph().parse(data=text, format=fmt, publicID=url)


def content(graph, url):
    """The graph without the server's metadata about the document itself (created, modified...)."""
    out = rdflib.Graph()
    document = rdflib.URIRef(url)
    for triple in graph.triples((None, None, None)):
        if triple[0] != document:
            out.add(triple)
    return out


def serialise(graph, fmt, accept, url):
    if fmt in DATASETS:
        # A dataset format needs a context-aware graph: the triples go in the graph named by the
        # document's URL, which Lodestone takes as the document (any other graph is a 422).
        dataset = rdflib.ConjunctiveGraph()
        named = dataset.get_context(rdflib.URIRef(url))
        for triple in graph:
            named.add(triple)
        return dataset.serialize(format=fmt, encoding='utf-8')
    if fmt == 'json-ld':
        return graph.serialize(format=fmt, encoding='utf-8', auto_compact=accept == COMPACTED)
    return graph.serialize(format=fmt, encoding='utf-8', base=url if fmt == 'turtle' else None)


def read(url, cert):
    this = rdflib.URIRef(url + '#this')
    reference = parse(get(url, cert, 'application/n-triples').text, 'nt', url)
    results = []
    for accept, fmt in FORMATS:
        response = get(url, cert, accept)
        graph = parse(response.text, fmt, url)
        results.append({
            'accept': accept,
            'contentType': response.headers.get('Content-Type'),
            'encoding': response.encoding,
            'triples': len(graph),
            'title': str(graph.value(this, rdflib.DCTERMS.title)),
            'note': str(graph.value(this, EX.note)),
            'isomorphic': isomorphic(graph, reference),
        })
    return results


def roundtrip(url, cert):
    this = rdflib.URIRef(url + '#this')
    results = []
    for accept, fmt in FORMATS:
        if accept == 'text/plain':
            continue  # read only: Lodestone answers text/plain as N-Triples but does not take it in
        response = get(url, cert, accept)
        etag = response.headers['ETag']
        graph = parse(response.text, fmt, url)
        marker = rdflib.Literal(f'rdflib {fmt} {accept} \U0001F984')
        graph.add((this, EX.writtenBy, marker))
        for old in graph.objects(this, EX.writtenBy):
            if old != marker:
                graph.remove((this, EX.writtenBy, old))
        body = serialise(graph, fmt, accept, url)
        headers = {'Content-Type': accept.split(';')[0], 'Accept': accept, 'If-Match': etag}
        put = requests.put(url, data=body, headers=headers, cert=cert, verify=False)
        stored = parse(get(url, cert, 'application/n-triples').text, 'nt', url)
        stale = requests.put(url, data=body, headers=headers, cert=cert, verify=False)
        error = parse(stale.text, fmt, url)  # the RDF error body, in the format asked for
        results.append({
            'accept': accept,
            'put': put.status_code,
            'putBody': put.text,
            'isomorphic': isomorphic(content(graph, url), content(stored, url)),
            'marker': str(marker),
            'stale': stale.status_code,
            'staleTitle': str(next(error.objects(None, rdflib.DCTERMS.title), '')),
        })
    return results


def patch(url, cert):
    """One SPARQL update of the DELETE/INSERT ... WHERE form (SPEC 4.2), sent with If-Match."""
    this = rdflib.URIRef(url + '#this')
    response = get(url, cert, 'text/turtle')
    update = 'PREFIX ex: <http://example.org/ns#> DELETE { <#this> ex:note ?note } INSERT { <#this> ex:note "patched by requests \U0001F984" } WHERE { <#this> ex:note ?note }'
    headers = {'Content-Type': 'application/sparql-update', 'Accept': 'text/turtle', 'If-Match': response.headers['ETag']}
    patched = requests.patch(url, data=update.encode('utf-8'), headers=headers, cert=cert, verify=False)
    graph = parse(get(url, cert, 'text/turtle').text, 'turtle', url)
    return {'status': patched.status_code, 'etag': patched.headers.get('ETag'), 'notes': [str(o) for o in graph.objects(this, EX.note)]}


def main():
    command, url, cert = sys.argv[1:4]
    commands = {'read': read, 'roundtrip': roundtrip, 'patch': patch}
    json.dump(commands[command](url, cert), sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
