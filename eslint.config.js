import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// A media type written as a string: top-level type, a slash, a subtype (RFC 6838 §4.2), maybe parameters.
const MEDIA_TYPE = '(?:text|application|image|audio|video|font|model|multipart|message)\\/[a-z0-9][a-z0-9!#$&^_.+-]*';
const mediaTypeLiterals = {
  selector: `Literal[value=/^${MEDIA_TYPE}(\\s*;.*)?$/i]`,
  message: 'a media type is named once, in src/rdf/media-types.ts: import its constant',
};
const mediaTypesInTemplates = {
  selector: `TemplateElement[value.raw=/(^|[\\s"'(=])${MEDIA_TYPE}/i]`,
  message: 'a media type is named once, in src/rdf/media-types.ts: put its constant in the template',
};
// No module-level cache or registry (State from the composition root, STYLE.md).
const moduleCaches = {
  selector: ':matches(Program > VariableDeclaration, Program > ExportNamedDeclaration > VariableDeclaration) > VariableDeclarator > NewExpression[callee.name=/^(Map|WeakMap|ByteCache|LabelTable)$/]',
  message: 'no module-level cache or registry in src/http, src/pages, src/documents: the composition root builds it and passes it in',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'dist-test/**', 'scratch/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // Dependencies point one way (DESIGN.md): http → documents → store/index → rdf.
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['../store/*', '../index/*', '../mirror/*', '../watch/*', '../replica/*'],
          message: 'src/http reaches storage only through the document service (src/documents/)',
        }],
      }],
    },
  },
  // One decision per request (issue 26): the route table's rows declare what they need and offer,
  // dispatch authorizes and negotiates once; handlers receive the decision
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/http/routes.ts', 'src/http/authorize.ts', 'src/http/offers.ts', 'src/http/negotiate.ts', 'src/http/fast-read.ts', 'src/http/error-middleware.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['../store/*', '../index/*', '../mirror/*', '../watch/*', '../replica/*'],
          message: 'src/http reaches storage only through the document service (src/documents/)',
        }],
        paths: [
          { name: './authorize.js', importNames: ['requireMode', 'modesOnEndpoint', 'authorize'], message: 'a handler does not authorize: its route row declares `needs`, and dispatch decides (routes.ts)' },
          { name: './negotiate.js', importNames: ['negotiate', 'negotiateDocument'], message: 'a handler does not negotiate: its route row declares `offers`, and dispatch decides (a handler that knows more narrows with offers.ts `choose`)' },
        ],
      }],
    },
  },
  {
    files: ['src/rdf/**/*.ts', 'src/git/**/*.ts', 'src/util/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../**', '!../errors.js'], message: 'src/rdf, src/git and src/util are pure: they import nothing of Lodestone outside themselves but src/errors.ts' }],
      }],
    },
  },
  {
    files: ['src/pages/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../*', '!../rdf', '!../errors.js', '!../util'], message: 'src/pages draws HTML from plain values: it imports only src/rdf, src/util and src/errors.ts (the HTTP layer calls it)' }],
      }],
    },
  },
  {
    files: ['src/store/**/*.ts', 'src/index/**/*.ts', 'src/watch/**/*.ts', 'src/mirror/**/*.ts', 'src/replica/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../http/*', '../documents/*', '../access/*', '../auth/*'], message: 'storage, the index, the watcher and the mirror sit below documents and HTTP: they never import them' }],
      }],
    },
  },
  // One home per concept: a media type is named once, in src/rdf/media-types.ts. (A later block's
  // no-restricted-syntax replaces an earlier one's for the files both match, so each block below
  // lists every selector that holds for its files.)
  {
    files: ['src/**/*.ts'],
    ignores: [
      'src/rdf/media-types.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', mediaTypeLiterals, mediaTypesInTemplates] },
  },
  // State from the composition root (STYLE.md): no cache or registry a module fills at run time
  {
    files: ['src/pages/**/*.ts', 'src/documents/**/*.ts'],
    ignores: ['src/**/*-worker.ts'], // a worker thread's own state is its module's
    rules: { 'no-restricted-syntax': ['error', moduleCaches, mediaTypeLiterals, mediaTypesInTemplates] },
  },
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/**/*-worker.ts'],
    rules: { 'no-restricted-syntax': ['error', moduleCaches, mediaTypeLiterals, mediaTypesInTemplates] },
  },
  // The proxy as a service (issue 26) and the way out below it: plain requests and answers, no Koa, no HTTP layer
  {
    files: ['src/proxy/**/*.ts', 'src/net/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'koa', message: 'src/proxy and src/net know no Koa: the HTTP handler (src/http/proxy.ts) decodes the request and sends the answer' }],
        patterns: [{ group: ['../http/*', '../documents/*', '../store/*', '../index/*'], message: 'src/proxy and src/net sit below HTTP and the documents: they import net/, rdf/ and their own' }],
      }],
    },
  },
  {
    files: ['src/documents/**/*.ts', 'src/access/**/*.ts', 'src/auth/**/*.ts', 'src/ontology/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../http/*'], message: 'nothing below the HTTP layer imports it (DESIGN.md)' }],
      }],
    },
  },
);
