// The workflow sandbox boundary is enforced by the linter: code under workflows/ may not import the AI SDK, the MCP
// SDK, Zod, Node built-ins, worker-side Temporal packages or worker-side project code (types excepted).
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function boundaryErrors(code: string, filePath = 'workflows/agent-run.ts'): Promise<string[]> {
  // Linted as if it were that file itself, so its folder's rules apply.
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('workflow boundary lint', () => {
  it.each([
    ["import { generateText } from 'ai';", 'The AI SDK must stay out of the workflow sandbox.'],
    ["import { openai } from '@ai-sdk/openai';", 'The AI SDK must stay out of the workflow sandbox.'],
    ["import { Client } from '@modelcontextprotocol/sdk/client/index.js';", 'The MCP SDK must stay out'],
    ["import { z } from 'zod';", 'Schemas are validated in activities.'],
    ["import { readFileSync } from 'node:fs';", 'Node built-ins are not allowed in workflow code.'],
    ["import { createHash } from 'crypto';", 'Node built-ins are not allowed in workflow code.'],
    ["import { Worker } from '@temporalio/worker';", 'Workflow code may only use @temporalio/workflow.'],
    [
      "import { createActivities } from '../activities/index.js';",
      'Workflow code may import worker-side code as types only',
    ],
    ["import { createTool } from '../src/tool/tool.js';", 'Workflow code may import worker-side code as types only'],
  ])('rejects %s', async (line, message) => {
    const errors = await boundaryErrors(`${line}\nexport const probe = 1;\n`);
    expect(errors.join('\n')).toContain(message);
  });

  it('allows the workflow SDK, the protocol barrel, and type-only imports of worker-side code', async () => {
    const errors = await boundaryErrors(
      [
        "import { condition } from '@temporalio/workflow';",
        "import { WorkflowStream } from '@temporalio/workflow-streams/workflow';",
        "import { previewOutput } from '../src/protocol/index.js';",
        "import type { createActivities } from '../activities/index.js';",
        "import type { Tool } from '../src/tool/tool.js';",
        'export type Probe = ReturnType<typeof createActivities> | Tool;',
        'export const probe = [condition, previewOutput];',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
  });
});

describe('protocol boundary lint', () => {
  const protocolErrors = (code: string) => boundaryErrors(`${code}\nexport const probe = 1;\n`, 'src/protocol/json.ts');

  it.each([
    ["import { generateText } from 'ai';", 'The protocol may use the AI SDK for types only'],
    ["import { z } from 'zod';", 'Schemas are validated in activities.'],
    ["import { createHash } from 'node:crypto';", 'Node built-ins are not allowed in workflow code.'],
    ["import { Client } from '@temporalio/client';", 'Workflow code may only use @temporalio/workflow.'],
    ["import { createTool } from '../tool/tool.js';", 'The protocol may import worker-side code as types only.'],
  ])('rejects %s in src/protocol', async (line, message) => {
    expect((await protocolErrors(line)).join('\n')).toContain(message);
  });

  it('allows type imports from the AI SDK and its own modules', async () => {
    expect(
      await protocolErrors(
        [
          "import type { ModelMessage } from 'ai';",
          "import { utf8Length } from './bytes.js';",
          // The pure, eval-free libraries the protocol's answer check and question ids are built on.
          "import { validate } from '@cfworker/json-schema';",
          "import { sha256 } from '@noble/hashes/sha2';",
          'export type Probe = ModelMessage;',
          'export const used = [utf8Length, validate, sha256];',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
