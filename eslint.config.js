import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'scratch/**', 'data/**'] },
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
          group: ['../store/*', '../index/*', '../mirror/*', '../watch/*'],
          message: 'src/http reaches storage only through the document service (src/documents/)',
        }],
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
    files: ['src/store/**/*.ts', 'src/index/**/*.ts', 'src/watch/**/*.ts', 'src/mirror/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../http/*', '../documents/*', '../access/*', '../auth/*'], message: 'storage, the index, the watcher and the mirror sit below documents and HTTP: they never import them' }],
      }],
    },
  },
  // State from the composition root (STYLE.md): no cache or registry a module fills at run time
  {
    files: ['src/http/**/*.ts', 'src/pages/**/*.ts', 'src/documents/**/*.ts'],
    ignores: ['src/**/*-worker.ts'], // a worker thread's own state is its module's
    rules: {
      'no-restricted-syntax': ['error', {
        selector: ':matches(Program > VariableDeclaration, Program > ExportNamedDeclaration > VariableDeclaration) > VariableDeclarator > NewExpression[callee.name=/^(Map|WeakMap|ByteCache|LabelTable)$/]',
        message: 'no module-level cache or registry in src/http, src/pages, src/documents: the composition root builds it and passes it in',
      }],
    },
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
