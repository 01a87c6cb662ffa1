import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'scratch/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/plugins/**'], message: 'src/kernel must not import plugins (ARCHITECTURE rule 2).' },
          ],
        },
      ],
    },
  },
  {
    // Only the kernel is forbidden to import plugins.
    files: ['plugins/**', 'src/app/**', 'src/cli/**', 'src/catalog.ts', 'test/**', 'bench/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The pages' scripts run in browsers, bundled on their own (scripts/bundle-browser.js): browser globals, and
    // imports of browser modules beside them or of packages' types only, never of the server's code.
    files: ['plugins/*/browser/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Browser code cannot use Node modules.' },
            { group: ['../*'], message: 'Browser code imports only modules of its own browser/ folder.' },
          ],
        },
      ],
    },
  },
)
