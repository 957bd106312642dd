// Lint rules that hold the architecture: the workflow sandbox boundary, promises that are never dropped,
// type-only imports, and no import cycles.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
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
    settings: {
      // ESM sources import `./x.js`, which is `./x.ts` on disk: without this, import-x resolves nothing of ours.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.mts', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'] },
        }),
      ],
    },
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
      // Arrows that point one way only: what both sides need lives where both may import it (src/runtime,
      // src/history, src/protocol, src/duration.ts).
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './activities',
              from: ['./src/client', './src/worker', './src/cli', './src/http', './src/ui'],
              message: 'Activities run in the worker: shared code belongs in src/runtime, src/history or src/protocol.',
            },
            {
              target: './src/runtime',
              from: ['./activities', './src/worker', './src/client'],
              message: 'src/runtime is what activities and the worker share; it imports neither.',
            },
            {
              target: './src/tool',
              from: './src/mcp',
              message: 'The tool library does not depend on the MCP client; shared types live in src/protocol.',
            },
            {
              target: './src/mcp',
              from: './src/agent',
              message: 'The MCP client does not depend on agent definitions; move what both need out of src/agent.',
            },
          ],
        },
      ],
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
