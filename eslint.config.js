// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '.tools/**', '**/schemas/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'List exports by name (STYLE.md §4): no `export *` in a package.',
        },
      ],
    },
  },
  {
    // No app imports another (issue 11): what two apps share lives in a package. The app names
    // are also checked in their package.json files by apps/cli/src/app-boundaries.test.ts.
    files: ['apps/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['@osharm/cli', '@osharm/batch-judge'].map(name => ({
            name,
            message: 'Apps do not import each other: move what they share into a package.',
          })),
        },
      ],
    },
  },
  {
    // A package must not import itself by name from inside its own src.
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@osharm/*/src/*'],
              message: 'Import the public entry of a workspace package, not its sources.',
            },
          ],
        },
      ],
    },
  },
);
