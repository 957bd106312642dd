// Lint rules that hold the architecture: the workflow sandbox boundary, promises that are never dropped,
// type-only imports, and no import cycles.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** Imports that must stay out of Temporal's workflow sandbox (workflow code and the protocol it imports). */
const sandboxPatterns = [
  { group: ['@modelcontextprotocol/*'], message: 'The MCP SDK must stay out of the workflow sandbox.' },
  { group: ['zod', 'zod/*', 'zod-from-json-schema'], message: 'Schemas are validated in activities.' },
  {
    group: ['@temporalio/worker', '@temporalio/client', '@temporalio/activity', '@temporalio/testing'],
    message: 'Workflow code may only use @temporalio/workflow.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.tools/**',
      '.temporal/**',
      'test/fixtures/**',
      // The project template is typechecked as the generated project does it, against the packed package
      // (test/drills/newcomer.test.ts runs its typecheck): here 'durable-agent' would resolve to this repo.
      'templates/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Cycles inside dependencies are not ours to fix, and walking them trips on their dynamic imports.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The workflow bundle runs in Temporal's deterministic sandbox: no Node built-ins, no AI/MCP SDKs, no
    // worker-side code. Workflow code may only import the workflow-safe protocol module and @temporalio/workflow.
    files: ['workflows/**/*.ts', 'src/workflow/**/*.ts', 'src/workflow-api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
          patterns: [
            { group: ['ai', 'ai/*', '@ai-sdk/*'], message: 'The AI SDK must stay out of the workflow sandbox.' },
            ...sandboxPatterns,
            {
              group: ['**/activities/*', '**/activities', '**/src/*', '!**/src/protocol', '!**/src/protocol/*'],
              allowTypeImports: true,
              message: 'Workflow code may import worker-side code as types only; values come from src/protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    // The protocol is what workflow code imports: the same sandbox rules, and nothing from outside it but types.
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
          patterns: [
            {
              group: ['ai', 'ai/*', '@ai-sdk/*'],
              allowTypeImports: true,
              message: 'The protocol may use the AI SDK for types only (it is loaded into the workflow sandbox).',
            },
            ...sandboxPatterns,
            {
              group: ['../*', '!../protocol/*'],
              allowTypeImports: true,
              message: 'The protocol may import worker-side code as types only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
