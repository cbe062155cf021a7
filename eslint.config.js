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
          group: ['**/store/*', '**/index/*', '**/mirror/*', '**/watch/*'],
          message: 'src/http reaches storage only through the document service (src/documents/)',
        }],
      }],
    },
  },
  {
    files: ['src/rdf/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../**', '!../errors.js'], message: 'src/rdf is pure: it imports nothing of Lodestone outside itself but src/errors.ts' }],
      }],
    },
  },
);
