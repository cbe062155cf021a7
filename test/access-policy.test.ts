/**
 * The authorization decision (src/access/policy.ts), unit by unit: every mode under every kind of
 * "who" and "what", owners, Write implying Append, what does not count (foreign dataspaces, graphs
 * outside acl/authorizations/), the default documents of the bootstrap parsed back from their
 * Turtle, and a policy of 10,000 authorizations deciding 10,000 times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { defaultAccessDocuments } from '../src/access/default-access.js';
import { Policy, type Mode, type Target } from '../src/access/policy.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';

const { namedNode, quad } = DataFactory;
const U = 'https://localhost:4443/';
const A = 'https://localhost:4443/admin/';
const ALICE = `${A}acl/agents/alice/#this`;
const BOB = `${A}acl/agents/bob/#this`;
const ALL_MODES: readonly Mode[] = ['Read', 'Write', 'Append', 'Control'];
const PREFIXES = `@prefix acl: <${ns.acl}> . @prefix foaf: <${ns.foaf}> . @prefix rdfs: <${ns.rdfs}> . @prefix ex: <http://example.org/> . @prefix dh: <${ns.dh}> .\n`;

type Graph = { url: string; quads: Quad[] };

function doc(url: string, turtle: string): Graph {
  return { url, quads: parseRdf(PREFIXES + turtle, { format: 'text/turtle', baseIRI: url }) };
}

function authorization(slug: string, body: string, base = A): Graph {
  return doc(`${base}acl/authorizations/${slug}/`, `<> foaf:primaryTopic <#this> . <#this> a acl:Authorization ; ${body} .`);
}

function group(slug: string, members: string[], base = A): Graph {
  const list = members.length ? ` ; foaf:member ${members.map((m) => `<${m}>`).join(', ')}` : '';
  return doc(`${base}acl/groups/${slug}/`, `<#this> a foaf:Group${list} .`);
}

function target(url: string, types: string[] = [ns.dh + 'Item'], owners: string[] = []): Target {
  return { url, types, owners };
}

const sorted = (modes: ReadonlySet<Mode>) => [...modes].sort();
const implied = (mode: Mode): Mode[] => (mode === 'Write' ? ['Append', 'Write'] : [mode]);

describe('Policy: who × what × mode', () => {
  const whos = {
    agent: { rule: `acl:agent <${ALICE}>`, alice: true, bob: false, anonymous: false },
    everyone: { rule: 'acl:agentClass foaf:Agent', alice: true, bob: true, anonymous: true },
    authenticated: { rule: 'acl:agentClass acl:AuthenticatedAgent', alice: true, bob: true, anonymous: false },
    group: { rule: `acl:agentGroup <${A}acl/groups/team/#this>`, alice: true, bob: false, anonymous: false },
  };
  const whats = {
    accessTo: { rule: `acl:accessTo <${U}things/a/>`, hit: target(`${U}things/a/`, []), miss: target(`${U}things/b/`) },
    accessToClass: { rule: 'acl:accessToClass ex:Thing', hit: target(`${U}x/y/`, ['http://example.org/Thing']), miss: target(`${U}x/y/`, [ns.dh + 'Item']) },
    default: { rule: `acl:default <${U}things/>`, hit: target(`${U}things/a/b/`, []), miss: target(`${U}things/`, [ns.dh + 'Container']) },
  };
  for (const mode of ALL_MODES) {
    for (const [whoName, who] of Object.entries(whos)) {
      for (const [whatName, what] of Object.entries(whats)) {
        it(`acl:${mode} through ${whoName} and ${whatName}`, () => {
          const policy = Policy.build({ adminBase: A, graphs: [authorization('r', `${who.rule} ; ${what.rule} ; acl:mode acl:${mode}`), group('team', [ALICE])] });
          for (const [agent, expected] of [[ALICE, who.alice], [BOB, who.bob], [undefined, who.anonymous]] as const) {
            assert.deepEqual(sorted(policy.modes(agent, what.hit)), expected ? implied(mode) : [], `${agent ?? 'anonymous'} on the matching target`);
            for (const m of ALL_MODES) assert.equal(policy.allows(agent, what.hit, m), expected && implied(mode).includes(m));
            assert.deepEqual(policy.modes(agent, what.miss).size, 0, `${agent ?? 'anonymous'} on another target`);
          }
        });
      }
    }
  }

  it('matches acl:accessToClass through a subclass chain that has a cycle', () => {
    const ex = (local: string) => namedNode(`http://example.org/${local}`);
    const sub = (a: string, b: string) => quad(ex(a), namedNode(ns.rdfs + 'subClassOf'), ex(b));
    const subClassOf = [sub('C', 'B'), sub('B', 'A'), sub('D', 'C'), sub('E', 'D'), sub('D', 'E'), sub('A', 'Top'), sub('X', 'X')];
    const policy = Policy.build({ adminBase: A, graphs: [authorization('r', `acl:agent <${ALICE}> ; acl:accessToClass ex:B ; acl:mode acl:Read`)], subClassOf });
    for (const type of ['B', 'C', 'D', 'E']) assert.ok(policy.allows(ALICE, target(`${U}t/`, [`http://example.org/${type}`]), 'Read'), type);
    for (const type of ['A', 'Top', 'X', 'Y']) assert.ok(!policy.allows(ALICE, target(`${U}t/`, [`http://example.org/${type}`]), 'Read'), type);
    assert.ok(policy.allows(ALICE, target(`${U}t/`, ['http://example.org/Y', 'http://example.org/E']), 'Read'), 'one of several types is enough');
  });

  it('never makes the types the server puts on documents (dh:Item, dh:Container, def:Root) subclasses of anything', () => {
    const ex = (local: string) => namedNode(`http://example.org/${local}`);
    const sub = (a: string, b: string) => quad(namedNode(a), namedNode(ns.rdfs + 'subClassOf'), namedNode(b));
    const subClassOf = [sub(ns.dh + 'Item', ex('Public').value), sub(ns.dh + 'Container', ex('Public').value), sub(ns.def + 'Root', ex('Public').value), sub(ex('Report').value, ex('Public').value)];
    const policy = Policy.build({ adminBase: A, graphs: [authorization('public', `acl:agentClass foaf:Agent ; acl:accessToClass ex:Public ; acl:mode acl:Read, acl:Write`)], subClassOf });
    for (const type of [ns.dh + 'Item', ns.dh + 'Container', ns.def + 'Root']) assert.deepEqual(sorted(policy.modes(undefined, target(`${U}t/`, [type]))), [], type);
    assert.deepEqual(sorted(policy.modes(undefined, target(`${U}t/`, [ns.dh + 'Item', ex('Report').value]))), ['Append', 'Read', 'Write'], 'a class of the owners’ own still reaches its superclass');
  });

  it('counts subclasses of acl:Authorization and ignores subjects that are no authorization', () => {
    const subClassOf = [quad(namedNode('http://example.org/MyAuthorization'), namedNode(ns.rdfs + 'subClassOf'), namedNode(ns.acl + 'Authorization'))];
    const graphs = [
      doc(`${A}acl/authorizations/sub/`, `<#this> a ex:MyAuthorization ; acl:agent <${ALICE}> ; acl:accessTo <${U}a/> ; acl:mode acl:Read .`),
      doc(`${A}acl/authorizations/untyped/`, `<#this> acl:agent <${BOB}> ; acl:accessTo <${U}a/> ; acl:mode acl:Read .`),
    ];
    const policy = Policy.build({ adminBase: A, graphs, subClassOf });
    assert.ok(policy.allows(ALICE, target(`${U}a/`), 'Read'));
    assert.ok(!policy.allows(BOB, target(`${U}a/`), 'Read'));
  });
});

describe('Policy: owners, implications and scope', () => {
  it('lets the acl:owner Read, Write and Append the document, not Control it', () => {
    const policy = Policy.build({ adminBase: A, graphs: [] });
    const mine = target(`${U}mine/`, [ns.dh + 'Item'], [ALICE]);
    assert.deepEqual(sorted(policy.modes(ALICE, mine)), ['Append', 'Read', 'Write']);
    assert.ok(!policy.allows(ALICE, mine, 'Control'));
    assert.equal(policy.modes(BOB, mine).size, 0);
    assert.equal(policy.modes(undefined, mine).size, 0);
    assert.deepEqual(policy.authorizationsFor(ALICE, mine), [], 'owner rights come from no authorization');
    const withControl = Policy.build({ adminBase: A, graphs: [authorization('c', `acl:agent <${ALICE}> ; acl:accessTo <${U}mine/> ; acl:mode acl:Control`)] });
    assert.deepEqual(sorted(withControl.modes(ALICE, mine)), ['Append', 'Control', 'Read', 'Write']);
  });

  it('grants Append with Write, and nothing else with Control', () => {
    const policy = Policy.build({
      adminBase: A,
      graphs: [authorization('w', `acl:agent <${ALICE}> ; acl:accessTo <${U}a/> ; acl:mode acl:Write`), authorization('c', `acl:agent <${BOB}> ; acl:accessTo <${U}a/> ; acl:mode acl:Control`)],
    });
    assert.ok(policy.allows(ALICE, target(`${U}a/`), 'Append'));
    assert.ok(!policy.allows(ALICE, target(`${U}a/`), 'Read'));
    assert.deepEqual(sorted(policy.modes(BOB, target(`${U}a/`))), ['Control']);
  });

  it('stops inheritance at the base of an end-user dataspace at a path: containers above it grant nothing inside', () => {
    const second = `${U}second/`;
    const secondAdmin = `${second}admin/`;
    const graphs = [
      authorization('above', `acl:agent <${ALICE}> ; acl:default <${U}> ; acl:mode acl:Read`, secondAdmin),
      authorization('inside', `acl:agent <${BOB}> ; acl:default <${second}> ; acl:mode acl:Read`, secondAdmin),
    ];
    const policy = Policy.build({ adminBase: secondAdmin, endUserBase: second, graphs });
    assert.equal(policy.modes(ALICE, target(`${second}x/`)).size, 0, 'acl:default of the host root does not reach into /second/');
    assert.deepEqual(sorted(policy.modes(BOB, target(`${second}x/`))), ['Read']);
  });

  it('ignores authorizations and groups of another dataspace, and graphs outside acl/authorizations/ and acl/groups/', () => {
    const other = 'https://other.example/admin/';
    const nested = `${A}other/admin/`;
    const graphs = [
      authorization('foreign', `acl:agent <${ALICE}> ; acl:accessTo <${U}a/> ; acl:mode acl:Read`, other),
      doc(`${nested}acl/authorizations/x/`, `<#this> a acl:Authorization ; acl:agent <${ALICE}> ; acl:accessTo <${U}b/> ; acl:mode acl:Read .`),
      doc(`${A}acl/agents/bob/`, `<#this> a foaf:Agent . <#grant> a acl:Authorization ; acl:agent <${BOB}> ; acl:accessTo <${U}a/> ; acl:mode acl:Write .`),
      doc(`${A}acl/authorization-requests/r/`, `<#this> a acl:Authorization ; acl:agentClass foaf:Agent ; acl:accessTo <${U}a/> ; acl:mode acl:Read .`),
      doc(`${A}acl/authorizations/`, `<#this> a acl:Authorization ; acl:agentClass foaf:Agent ; acl:accessTo <${U}a/> ; acl:mode acl:Read .`),
      authorization('team', `acl:agentGroup <${A}acl/groups/team/#this> ; acl:accessTo <${U}c/> ; acl:mode acl:Read`),
      group('team', [ALICE], other),
      doc(`${A}acl/agents/bob/`, `<${A}acl/groups/team/#this> foaf:member <${BOB}> .`),
    ];
    const policy = Policy.build({ adminBase: A, graphs });
    for (const agent of [ALICE, BOB, undefined]) {
      for (const path of ['a/', 'b/', 'c/']) assert.equal(policy.modes(agent, target(U + path)).size, 0, `${agent ?? 'anonymous'} on ${path}`);
    }
  });

  it('tells anonymous from authenticated agents', () => {
    const policy = Policy.build({
      adminBase: A,
      graphs: [authorization('p', `acl:agentClass foaf:Agent ; acl:accessTo <${U}a/> ; acl:mode acl:Read`), authorization('q', `acl:agentClass acl:AuthenticatedAgent ; acl:accessTo <${U}a/> ; acl:mode acl:Append`)],
    });
    assert.deepEqual(sorted(policy.modes(undefined, target(`${U}a/`))), ['Read']);
    assert.deepEqual(sorted(policy.modes('https://elsewhere.example/me#i', target(`${U}a/`))), ['Append', 'Read']);
  });

  it('inherits acl:default by document URL only: not the container itself, not endpoints, not into the admin dataspace', () => {
    const policy = Policy.build({ adminBase: A, graphs: [authorization('d', `acl:agent <${ALICE}> ; acl:default <${U}> ; acl:mode acl:Read`)] });
    assert.ok(policy.allows(ALICE, target(`${U}things/`), 'Read'));
    assert.ok(policy.allows(ALICE, target(`${U}things/a/b/c/`), 'Read'));
    assert.ok(!policy.allows(ALICE, target(U, [ns.def + 'Root']), 'Read'), 'the root itself needs acl:accessTo');
    assert.ok(!policy.allows(ALICE, target(`${U}sparql`, []), 'Read'), 'endpoints need acl:accessTo');
    assert.ok(!policy.allows(ALICE, target(A), 'Read'));
    assert.ok(!policy.allows(ALICE, target(`${A}acl/groups/owners/`), 'Read'));
    const admin = Policy.build({ adminBase: A, graphs: [authorization('d', `acl:agent <${ALICE}> ; acl:default <${A}> ; acl:mode acl:Read`)] });
    assert.ok(admin.allows(ALICE, target(`${A}acl/groups/owners/`), 'Read'));
    assert.ok(!admin.allows(ALICE, target(`${U}things/`), 'Read'));
  });

  it('lists the authorizations that give an agent anything on a target', () => {
    const graphs = [
      authorization('one', `acl:agent <${ALICE}> ; acl:accessTo <${U}a/> ; acl:mode acl:Read`),
      authorization('two', `acl:agentGroup <${A}acl/groups/team/#this> ; acl:accessToClass dh:Item ; acl:mode acl:Write`),
      authorization('three', `acl:agentClass foaf:Agent ; acl:default <${U}> ; acl:mode acl:Read`),
      authorization('four', `acl:agent <${BOB}> ; acl:accessTo <${U}a/> ; acl:mode acl:Read`),
      group('team', [ALICE]),
    ];
    const policy = Policy.build({ adminBase: A, graphs });
    const a = target(`${U}a/`);
    assert.deepEqual(policy.authorizationsFor(ALICE, a), [`${A}acl/authorizations/one/#this`, `${A}acl/authorizations/three/#this`, `${A}acl/authorizations/two/#this`]);
    assert.deepEqual(policy.authorizationsFor(undefined, a), [`${A}acl/authorizations/three/#this`]);
    assert.deepEqual(policy.authorizationsFor(BOB, target(`${A}x/`)), []);
    // asked twice, answered from the cache, and the answer is a copy
    policy.authorizationsFor(ALICE, a).pop();
    assert.equal(policy.authorizationsFor(ALICE, a).length, 3);
  });

  it('gives the public read rules', () => {
    const graphs = [
      authorization('p', `acl:agentClass foaf:Agent ; acl:accessTo <${U}ns>, <${U}about/> ; acl:accessToClass ex:Public ; acl:default <${U}blog/> ; acl:mode acl:Read`),
      authorization('q', `acl:agentClass foaf:Agent ; acl:accessTo <${U}inbox/> ; acl:mode acl:Append`),
      authorization('r', `acl:agentClass acl:AuthenticatedAgent ; acl:accessTo <${U}members/> ; acl:mode acl:Read`),
      authorization('s', `acl:agent <${ALICE}> ; acl:accessToClass ex:Private ; acl:mode acl:Read`),
    ];
    assert.deepEqual(Policy.build({ adminBase: A, graphs }).publicReadRules(), { accessTo: [`${U}about/`, `${U}ns`], accessToClass: ['http://example.org/Public'], default: [`${U}blog/`] });
    assert.deepEqual(Policy.build({ adminBase: A, graphs: [] }).publicReadRules(), { accessTo: [], accessToClass: [], default: [] });
  });

  it('keeps answering correctly past the decision cache bound', () => {
    const policy = Policy.build({ adminBase: A, graphs: [authorization('d', `acl:agentClass foaf:Agent ; acl:default <${U}> ; acl:mode acl:Read`)] });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 12_000; i++) assert.ok(policy.allows(undefined, target(`${U}d/${i}/`), 'Read'));
    }
  });
});

describe('defaultAccessDocuments', () => {
  const OWNER = `${A}acl/agents/owner/#this`;
  const SECRETARY = `${A}acl/agents/secretary/#this`;
  const READER = `${A}acl/agents/reader/#this`;
  const STRANGER = 'https://elsewhere.example/profile/#me';
  const documents = defaultAccessDocuments({ endUserBase: U, adminBase: A, ownerWebId: OWNER, secretaryWebId: SECRETARY });
  const graphs = documents.map((d) => ({ url: A + d.path, quads: parseRdf(d.turtle, { format: 'text/turtle', baseIRI: A + d.path }) }));
  // The readers group starts empty: give it a member the way an administrator would.
  const readers = graphs.find((g) => g.url === `${A}acl/groups/readers/`)!;
  const withReader = graphs.map((g) => (g === readers ? { url: g.url, quads: [...g.quads, quad(namedNode(`${g.url}#this`), namedNode(ns.foaf + 'member'), namedNode(READER))] } : g));
  const policy = Policy.build({ adminBase: A, graphs: withReader });

  it('writes groups and authorizations as documents whose primary topic is <#this>', () => {
    assert.deepEqual(documents.map((d) => d.path).sort(), [
      'acl/authorizations/access-request/', 'acl/authorizations/owners/', 'acl/authorizations/public/', 'acl/authorizations/readers/',
      'acl/authorizations/sign-up/', 'acl/authorizations/sparql/', 'acl/authorizations/writers/', 'acl/groups/owners/', 'acl/groups/readers/', 'acl/groups/writers/',
    ]);
    for (const g of graphs) {
      const has = (s: string, p: string, o: string) => g.quads.some((q) => q.subject.value === s && q.predicate.value === p && q.object.value === o);
      assert.ok(has(g.url, ns.foaf + 'primaryTopic', `${g.url}#this`), g.url);
      assert.ok(has(`${g.url}#this`, ns.rdf + 'type', g.url.includes('/groups/') ? ns.foaf + 'Group' : ns.acl + 'Authorization'), g.url);
    }
    const members = (slug: string) => graphs.find((g) => g.url === `${A}acl/groups/${slug}/`)!.quads.filter((q) => q.predicate.value === ns.foaf + 'member').map((q) => q.object.value);
    assert.deepEqual(members('owners'), [OWNER]);
    assert.deepEqual(members('writers'), [SECRETARY]);
    assert.deepEqual(members('readers'), []);
  });

  const FULL = 'Append Control Read Write';
  const RWA = 'Append Read Write';
  const endUserDocs = [target(U, [ns.def + 'Root', ns.dh + 'Container']), target(`${U}things/`, [ns.dh + 'Container']), target(`${U}things/a/`), target(`${U}new/doc/`, [])];
  const adminDocs = [target(A, [ns.def + 'Root', ns.dh + 'Container']), target(`${A}acl/`, [ns.dh + 'Container']), target(`${A}acl/agents/`, [ns.dh + 'Container']), target(`${A}acl/authorizations/owners/`), target(`${A}acl/groups/writers/`)];
  const publicDocs = [target(`${A}acl/agents/secretary/`), target(`${A}acl/public-keys/k1/`), target(`${A}acl/agents/someone-later/`)];
  const endpoint = (url: string) => target(url, []);
  // expected modes per agent, by target; absent = none
  const cases: [string, Target[], Record<string, string>][] = [
    ['end-user documents', endUserDocs, { owner: FULL, secretary: RWA, reader: 'Read' }],
    ['admin documents', adminDocs, { owner: FULL }],
    ['agent documents and public keys', publicDocs, { owner: FULL, secretary: 'Read', reader: 'Read', stranger: 'Read', anonymous: 'Read' }],
    ['end-user sparql', [endpoint(`${U}sparql`)], { owner: FULL, secretary: 'Read', reader: 'Read' }],
    ['end-user ns', [endpoint(`${U}ns`)], { owner: FULL, secretary: 'Read', reader: 'Read', stranger: 'Read', anonymous: 'Read' }],
    ['end-user settings and admin endpoints', [`${U}settings`, `${A}sparql`, `${A}ns`, `${A}settings`, `${A}clear`].map(endpoint), { owner: FULL }],
    ['admin access', [endpoint(`${A}access`)], { owner: FULL, secretary: 'Read', reader: 'Read', stranger: 'Read', anonymous: 'Read' }],
    ['admin access/request', [endpoint(`${A}access/request`)], { owner: FULL, secretary: 'Append', reader: 'Append', stranger: 'Append', anonymous: 'Append' }],
    ['admin sign up', [endpoint(`${A}sign%20up`)], { owner: FULL, secretary: 'Append Read', reader: 'Append Read', stranger: 'Append Read', anonymous: 'Append Read' }],
    ['anything else', [endpoint(`${U}uploads/x`), endpoint(`${U}sitemap.xml`), target('https://other.example/a/')], {}],
  ];
  const agents: Record<string, string | undefined> = { owner: OWNER, secretary: SECRETARY, reader: READER, stranger: STRANGER, anonymous: undefined };
  for (const [label, targets, expected] of cases) {
    it(`gives exactly the default rights on ${label}`, () => {
      for (const t of targets) {
        for (const [name, agent] of Object.entries(agents)) assert.equal(sorted(policy.modes(agent, t)).join(' '), expected[name] ?? '', `${name} on ${t.url}`);
      }
    });
  }

  it('makes only what must be public public', () => {
    assert.deepEqual(policy.publicReadRules(), { accessTo: [`${A}access`, `${A}sign%20up`, `${U}ns`], accessToClass: [], default: [`${A}acl/agents/`, `${A}acl/public-keys/`] });
  });

  it('refuses bases without a trailing slash', () => {
    assert.throws(() => defaultAccessDocuments({ endUserBase: 'https://localhost:4443', adminBase: A, ownerWebId: OWNER, secretaryWebId: SECRETARY }));
    assert.throws(() => Policy.build({ adminBase: 'https://localhost:4443/admin', graphs: [] }));
  });
});

describe('Policy at scale', () => {
  it('decides 10,000 times over 10,000 authorizations', () => {
    const N = 10_000;
    const AGENTS = 2_000;
    const GROUPS = 100;
    const agent = (k: number) => `${A}acl/agents/${k}/#this`;
    const iri = (value: string) => namedNode(value);
    const p = (local: string) => iri(ns.acl + local);
    const graphs: Graph[] = [];
    // i % 100 === 0: group i/100 reads class ex:C<i/100>. Other even i: agent i % 2000 reads things/i/. Odd i: agent i % 2000 writes every dh:Item.
    for (let i = 0; i < N; i++) {
      const url = `${A}acl/authorizations/${i}/`;
      const s = iri(`${url}#this`);
      const quads = [quad(s, iri(ns.rdf + 'type'), p('Authorization'))];
      if (i % 100 === 0) quads.push(quad(s, p('agentGroup'), iri(`${A}acl/groups/${i / 100}/#this`)), quad(s, p('accessToClass'), iri(`http://example.org/C${i / 100}`)), quad(s, p('mode'), p('Read')));
      else if (i % 2 === 0) quads.push(quad(s, p('agent'), iri(agent(i % AGENTS))), quad(s, p('accessTo'), iri(`${U}things/${i}/`)), quad(s, p('mode'), p('Read')));
      else quads.push(quad(s, p('agent'), iri(agent(i % AGENTS))), quad(s, p('accessToClass'), iri(ns.dh + 'Item')), quad(s, p('mode'), p('Write')));
      graphs.push({ url, quads });
    }
    for (let g = 0; g < GROUPS; g++) {
      const url = `${A}acl/groups/${g}/`;
      graphs.push({ url, quads: [quad(iri(`${url}#this`), iri(ns.foaf + 'member'), iri(agent(AGENTS + g)))] });
    }
    const t0 = performance.now();
    const policy = Policy.build({ adminBase: A, graphs });
    const t1 = performance.now();
    let allowed = 0;
    for (let j = 0; j < N; j++) {
      const d = (j * 2) % N;
      const c = j % GROUPS;
      const t = target(`${U}things/${d}/`, [ns.dh + 'Item', `http://example.org/C${c}`]);
      let who: string | undefined;
      let expected: Mode[];
      if (j % 11 === 0) [who, expected] = [undefined, []];
      else if (j % 7 === 0) [who, expected] = [agent(AGENTS + c), ['Read']]; // a member of group c
      else {
        const k = (j * 3) % AGENTS;
        who = agent(k);
        expected = [...(d % 100 !== 0 && d % AGENTS === k ? ['Read' as const] : []), ...(k % 2 === 1 ? ['Write' as const, 'Append' as const] : [])];
      }
      assert.deepEqual(sorted(policy.modes(who, t)), expected.sort(), `decision ${j}`);
      if (policy.allows(who, t, 'Read')) allowed++;
    }
    const t2 = performance.now();
    assert.ok(allowed > 0);
    console.log(`policy over ${N} authorizations: built in ${(t1 - t0).toFixed(1)} ms, ${N} decisions in ${(t2 - t1).toFixed(1)} ms`);
  });
});
