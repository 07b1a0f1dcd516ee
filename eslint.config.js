// npx eslint . (and .ci/run): typescript-eslint's recommended rules over src/, test/, bench/, the
// scripts and the client package (clients/), syntax only (no type information: the compiler already
// checks types, and type-aware rules would double the time of a run).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The client package's build output, and its types generated from the OpenAPI document
  // (scripts/client-types.mjs; test/client-package.test.ts compares them with the document).
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'clients/*/dist/**', 'clients/*/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        FormData: 'readonly',
        Blob: 'readonly',
        crypto: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      // A leading underscore names what is left out on purpose: `const { proof: _proof, ...rest } = data`.
      // A variable a closure reads before its one assignment (a server's handler and the server) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Migrations are written against Kysely<any>, as Kysely advises: a migration must not depend on
    // the schema's types of today. Tests read JSON answers whose shape the assertions check.
    files: ['src/db/migrations/**', 'test/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
