// Lint for the whole tree: typescript-eslint's strict and stylistic type-checked sets, React's
// hook rules for the web UI, and the server's layers written down as rules (scripts/layers.js,
// docs/architecture.md). Import cycles are dependency-cruiser's job (.dependency-cruiser.cjs):
// it counts type-only imports, which import-x/no-cycle skips. Prettier owns formatting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { LAYERS, layerZones } from './scripts/layers.js';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.build/',
      'node_modules/',
      'data/',
      '.bench/',
      'test-artifacts/',
      'web/dist/',
      'rules/',
      'config/',
      'vendor/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': {
        typescript: { project: ['tsconfig.json', 'web/tsconfig.json'], noWarnOnMultipleProjects: true },
      },
    },
    rules: {
      // Numbers and booleans in messages read fine; objects and nullish values are the mistakes.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `void promise` marks a deliberate fire-and-forget (timers, event handlers); node:test's
      // test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          ignoreVoid: true,
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // `() => doSomething()` returning void is the idiom for callbacks; Prettier writes it so.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A closure may read a variable the code below assigns once (a logger that exists later).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
    },
  },
  {
    // The server's layers: a folder imports only from the folders below it.
    files: ['src/**/*.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones(LAYERS) }] },
  },
  {
    // Fastify plugins and route handlers are async by contract (avvio awaits a plugin; a
    // handler's resolved value is the reply), whether or not their body awaits anything.
    files: ['src/**/*-routes.ts', 'src/app/server.ts', 'src/app/openapi.ts', 'src/http/web-ui.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Tests assert on values they just checked exist; a failed assertion is the error report.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  prettier,
);
