"""Queries Lodestone's SPARQL endpoint with SPARQLWrapper, as a user would.

Run with Debian's interpreter (apt-get install python3-sparqlwrapper python3-rdflib):

    /usr/bin/python3 sparqlwrapper_queries.py ENDPOINT CERT DOCUMENT

SPARQLWrapper sends its requests with urllib, so the client certificate (CERT: a PEM file holding
the certificate and its key) goes in an SSL context installed as urllib's opener; the server's
self-signed certificate is not verified. The queries look at DOCUMENT's graph. Prints one JSON object for test/clients-python.test.ts:
the SELECT rows and the ASK answer in each results format (JSON, XML, CSV, TSV; GET and POST), and
the CONSTRUCT graph in each RDF format (Turtle, N-Triples, RDF/XML, JSON-LD, N-Quads, TriG).

SPARQLWrapper's warnings that the answer is not in the format asked for are errors here.
"""
import io
import json
import ssl
import sys
import urllib.request
import warnings

import rdflib
from rdflib.query import Result
from SPARQLWrapper import CSV, GET, JSON, N3, POST, RDFXML, TSV, TURTLE, XML, SPARQLWrapper

warnings.simplefilter('error', RuntimeWarning)

PREFIXES = 'PREFIX dct: <http://purl.org/dc/terms/> PREFIX ex: <http://example.org/ns#> '
# {document}: the URL of the document the queries look at (its graph in the endpoint's dataset)
SELECT = PREFIXES + 'SELECT ?s ?title ?note WHERE { GRAPH <{document}> { ?s dct:title ?title ; ex:note ?note FILTER(CONTAINS(?title, "\U0001F984")) } }'
ASK = PREFIXES + 'ASK { GRAPH <{document}> { ?s dct:title "Grüße, 日本語, \U0001F984 unicorn"@de } }'
CONSTRUCT = PREFIXES + 'CONSTRUCT { ?s dct:title ?title ; ex:note ?note } WHERE { GRAPH <{document}> { ?s dct:title ?title ; ex:note ?note FILTER(CONTAINS(?title, "\U0001F984")) } }'


def use_certificate(cert):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.load_cert_chain(cert)
    urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=context)))


def wrapper(endpoint, query, fmt, method=GET, accept=None):
    sparql = SPARQLWrapper(endpoint)
    sparql.setQuery(query)
    sparql.setReturnFormat(fmt)
    sparql.setMethod(method)
    if accept:
        sparql.addCustomHttpHeader('Accept', accept)
    return sparql


def term(node):
    """A result term as {value, lang}: the same shape whichever format it came in."""
    return {'value': str(node), 'lang': getattr(node, 'language', None)}


def rows(fmt, converted):
    """SELECT rows from what SPARQLWrapper's convert() gives for each format."""
    if fmt == JSON:
        return [{name: {'value': b['value'], 'lang': b.get('xml:lang')} for name, b in row.items()} for row in converted['results']['bindings']]
    if fmt == XML:  # a minidom Document
        out = []
        for result in converted.getElementsByTagName('result'):
            row = {}
            for binding in result.getElementsByTagName('binding'):
                node = binding.firstChild
                text = ''.join(child.data for child in node.childNodes)
                row[binding.getAttribute('name')] = {'value': text, 'lang': node.getAttribute('xml:lang') or None}
            out.append(row)
        return out
    # CSV and TSV: bytes, read with rdflib's results parsers
    parsed = Result.parse(io.BytesIO(converted), format='csv' if fmt == CSV else 'tsv')
    return [{str(name): term(value) for name, value in row.asdict().items()} for row in parsed]


def ask(fmt, converted):
    if fmt == JSON:
        return converted['boolean']
    if fmt == XML:
        return converted.getElementsByTagName('boolean')[0].firstChild.data == 'true'
    lines = converted.decode('utf-8').splitlines()  # CSV/TSV: one column, _askResult, as Jena writes it
    return {'header': lines[0], 'value': lines[1]}


def construct(endpoint, query, name, fmt, accept, parse_as):
    result = wrapper(endpoint, query, fmt, accept=accept).query()
    if parse_as is None:
        graph = result.convert()  # RDF/XML: SPARQLWrapper parses it into an rdflib graph
    else:
        graph = (rdflib.ConjunctiveGraph() if parse_as in ('nquads', 'trig') else rdflib.Graph()).parse(data=result.response.read(), format=parse_as)
    return {
        'format': name,
        'contentType': result.info()['content-type'],
        'triples': len(graph),
        'titles': sorted(str(o) for o in graph.objects(None, rdflib.DCTERMS.title)),
        'notes': sorted(str(o) for o in graph.objects(None, rdflib.URIRef('http://example.org/ns#note'))),
    }


def main():
    endpoint, cert, document = sys.argv[1:4]
    select, ask_query, construct_query = (query.replace('{document}', document) for query in (SELECT, ASK, CONSTRUCT))
    use_certificate(cert)
    out = {'select': [], 'ask': [], 'construct': []}
    for fmt in (JSON, XML, CSV, TSV):
        for method in (GET, POST):
            result = wrapper(endpoint, select, fmt, method).query()
            out['select'].append({'format': fmt, 'method': method, 'contentType': result.info()['content-type'], 'rows': rows(fmt, result.convert())})
            result = wrapper(endpoint, ask_query, fmt, method).query()
            out['ask'].append({'format': fmt, 'method': method, 'contentType': result.info()['content-type'], 'answer': ask(fmt, result.convert())})
    # SPARQLWrapper 1.8.5 sends Turtle for TURTLE and N3; N-Triples, N-Quads and TriG are asked for
    # with a custom Accept, and the body parsed with rdflib.
    # Its JSONLD format needs the old rdflib-jsonld package, absent from Debian: the JSON-LD answer is
    # asked for with a custom Accept and parsed with rdflib, which reads JSON-LD itself.
    out['construct'].append(construct(endpoint, construct_query, 'turtle', TURTLE, None, 'turtle'))
    out['construct'].append(construct(endpoint, construct_query, 'n-triples', N3, 'application/n-triples', 'nt'))
    out['construct'].append(construct(endpoint, construct_query, 'rdf/xml', RDFXML, None, None))
    out['construct'].append(construct(endpoint, construct_query, 'json-ld', TURTLE, 'application/ld+json', 'json-ld'))
    out['construct'].append(construct(endpoint, construct_query, 'n-quads', N3, 'application/n-quads', 'nquads'))
    out['construct'].append(construct(endpoint, construct_query, 'trig', N3, 'application/trig', 'trig'))
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
