/**
 * The system configuration as a file people keep (src/settings.ts, src/rdf/turtle-statements.ts):
 * the Turtle text cut into statements gives the text back; an edit of a dataspace's settings
 * rewrites only the statements it changes, keeping comments, prefixed names and every other
 * statement byte for byte; the checks that refuse an edit.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DataFactory } from 'n3';
import { isLodestoneError } from '../src/errors.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { splitTurtle } from '../src/rdf/turtle-statements.js';
import { declaredPairs, defaultPair } from '../src/registry.js';
import { SystemSettings, checkEdit } from '../src/settings.js';
import { defaultSystemConfig } from '../src/system-config.js';
import { SystemFile } from '../src/system-file.js';
import { removeTempDirs, tempDir } from './helpers.js';

const { namedNode, literal, quad } = DataFactory;
const BASE = 'https://localhost:4443/';
after(removeTempDirs);

describe('Turtle statements', () => {
  it('cut a text into trivia, directives and statements that join back into it', () => {
    const text = [
      '# a comment with a dot. and <brackets>',
      '@prefix ex: <http://example.org/> .',
      'PREFIX dct: <http://purl.org/dc/terms/>',
      'ex:a.b dct:title "A. \\"quoted\\" title." ; ex:n 1.5 ; ex:m 2 . # trailing',
      'ex:c ex:d """long',
      'text. with dots""", \'single.\' .ex:e ex:f [ ex:g ex:h ] .',
      '<http://example.org/x.y> ex:p ( 1 2 ) .',
    ].join('\n');
    const pieces = splitTurtle(text);
    assert.equal(pieces.map((p) => p.text).join(''), text);
    const statements = pieces.filter((p) => p.kind === 'statement').map((p) => p.text);
    assert.equal(statements.length, 4, statements.join('\n---\n'));
    assert.ok(statements[0]!.startsWith('ex:a.b') && statements[0]!.endsWith('ex:m 2 .'));
    assert.ok(statements[1]!.endsWith("'single.' ."));
    assert.equal(statements[2], 'ex:e ex:f [ ex:g ex:h ] .');
    assert.deepEqual(pieces.filter((p) => p.kind === 'directive').map((p) => p.text), ['@prefix ex: <http://example.org/> .', 'PREFIX dct: <http://purl.org/dc/terms/>']);
  });
});

describe('editing the settings in system.ttl', () => {
  const title = (value: string) => quad(namedNode(BASE), namedNode(ns.dct + 'title'), literal(value));

  it('adds, changes and removes triples, keeping the rest of the file as it was written', async () => {
    const data = tempDir('settings');
    const file = join(data, 'system.ttl');
    const original = defaultSystemConfig(BASE);
    writeFileSync(file, original);
    const pairs = [defaultPair(BASE)];
    const settings = new SystemSettings(new SystemFile(file, BASE), pairs);
    await settings.update(BASE, async (before) => [...before, title('My data')]);
    const first = readFileSync(file, 'utf8');
    assert.ok(first.startsWith(original.slice(0, original.indexOf('<urn:lodestone:repository:end-user> a'))), 'everything up to the new statement is unchanged');
    assert.match(first, /dct:title "My data"/, 'written with the file’s prefixes');
    for (const line of original.split('\n')) assert.ok(first.includes(line), `kept: ${line}`);
    await settings.update(BASE, async (before) => [...before.filter((q) => q.predicate.value !== ns.dct + 'title'), title('Renamed')]);
    const second = readFileSync(file, 'utf8');
    assert.doesNotMatch(second, /My data/);
    assert.match(second, /"Renamed"/);
    for (const line of original.split('\n')) assert.ok(second.includes(line), `kept: ${line}`);
    await settings.update(BASE, async (before) => before.filter((q) => q.predicate.value !== ns.dct + 'title'));
    assert.equal(readFileSync(file, 'utf8').trim(), original.trim(), 'removing what was added gives the file back');
    // the file still declares the same dataspaces
    assert.deepEqual(declaredPairs(parseRdf(readFileSync(file, 'utf8'), { format: 'text/turtle', baseIRI: BASE }), file, BASE), pairs);
  });

  it('rewrites a statement with a blank node only when one of its triples changes', async () => {
    const data = tempDir('settings');
    const file = join(data, 'system.ttl');
    const text = [
      `@prefix lapp: <${ns.lapp}> . @prefix dct: <${ns.dct}> . @prefix ex: <http://example.org/> .`,
      `<${BASE}> a lapp:EndUserApplication ; dct:identifier "end-user" ; lapp:adminApplication <${BASE}admin/> ;`,
      '  ex:contact [ ex:name "Ada" ; ex:mail "ada@example.org" ] . # who to ask',
      `<${BASE}admin/> a lapp:AdminApplication ; dct:identifier "admin" .`,
      '',
    ].join('\n');
    writeFileSync(file, text);
    const settings = new SystemSettings(new SystemFile(file, BASE), [defaultPair(BASE)]);
    const described = await settings.description(BASE);
    assert.equal(described.length, 6, 'the dataspace and the blank node it leads to');
    await settings.update(BASE, async (before) => [...before, title('T')]);
    assert.ok(readFileSync(file, 'utf8').startsWith(text.trimEnd().split('\n').slice(0, 3).join('\n')), 'the statement with the blank node is untouched');
    await settings.update(BASE, async (before) => before.filter((q) => q.object.value !== 'ada@example.org'));
    const edited = readFileSync(file, 'utf8');
    assert.doesNotMatch(edited, /ada@example.org/);
    assert.match(edited, /# who to ask/, 'the comment stays');
    const graph = parseRdf(edited, { format: 'text/turtle', baseIRI: BASE });
    const contact = graph.find((q) => q.predicate.value === 'http://example.org/contact')!.object;
    assert.ok(graph.some((q) => q.subject.equals(contact) && q.object.value === 'Ada'), 'the blank node keeps its other triple');
    assert.equal(graph.length, 8);
  });

  it('declares the default pair with the first edit of a file that declares none', async () => {
    const data = tempDir('settings');
    const file = join(data, 'system.ttl');
    writeFileSync(file, '# nothing declared\n');
    const settings = new SystemSettings(new SystemFile(file, BASE), [defaultPair(BASE)]);
    assert.equal((await settings.description(BASE)).length, 3);
    await settings.update(BASE, async (before) => [...before, title('T')]);
    const graph = parseRdf(readFileSync(file, 'utf8'), { format: 'text/turtle', baseIRI: BASE });
    assert.deepEqual(declaredPairs(graph, file, BASE), [defaultPair(BASE)]);
    assert.ok(graph.some((q) => q.object.value === 'T'));
  });

  it('refuses edits that remove the dataspace, its type, its identifier or admin, or reach beyond it', () => {
    const before = [
      quad(namedNode(BASE), namedNode(ns.rdf + 'type'), namedNode(ns.lapp + 'EndUserApplication')),
      quad(namedNode(BASE), namedNode(ns.dct + 'identifier'), literal('end-user')),
      quad(namedNode(BASE), namedNode(ns.lapp + 'adminApplication'), namedNode(BASE + 'admin/')),
    ];
    const refused = (after: typeof before, pattern: RegExp) =>
      assert.throws(() => checkEdit(BASE, before, after), (error) => isLodestoneError(error, 'ConstraintViolation') && pattern.test(error.message));
    refused([], /removes the dataspace/);
    refused([before[1]!, before[2]!], /removes the type/);
    refused([before[0]!, before[2]!], /identifier/);
    refused([before[0]!, before[1]!, quad(namedNode(BASE), namedNode(ns.lapp + 'adminApplication'), namedNode(BASE + 'other/'))], /adminApplication/);
    refused([...before, quad(namedNode('https://example.org/x'), namedNode(ns.dct + 'title'), literal('x'))], /do not lead to/);
    refused([...before, quad(namedNode(BASE), namedNode(ns.rdfs + 'seeAlso'), namedNode(BASE + 'third/')), quad(namedNode(BASE + 'third/'), namedNode(ns.rdf + 'type'), namedNode(ns.lapp + 'EndUserApplication'))], /declares/);
    refused([...before, quad(namedNode(BASE), namedNode(ns.ldh + 'import'), literal('pkg'))], /ldh:import/);
    checkEdit(BASE, before, [...before, quad(namedNode(BASE), namedNode(ns.ldh + 'import'), namedNode('https://example.org/pkg#this'))]);
  });
});
