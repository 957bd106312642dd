// The inputs `executeTool` accepts for a routed run's callTool target: the 0.4.0 shape (`via: 'callTool'`, looked
// up in the run's pool) and the shape of runs in flight from earlier workflows (no `via`: looked up through the
// routing). The activities run in Temporal's mock activity environment; the transcript comes from describeAgent's seed.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createActivities } from '../../activities/index.js';
import { Agent } from '../../src/agent/agent.js';
import { AgentRegistry } from '../../src/agent/registry.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import type { DescribeAgentResult, ExecuteToolInput } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';

const run = { workflowId: 'wf-execute-inputs', runId: 'run-1' };

function setup() {
  const executed: string[] = [];
  // Pooled only: the agent does not register it.
  const lookupOrder = createTool({
    name: 'lookup_order',
    description: 'Look an order up by its number.',
    parameters: z.object({ order: z.string(), verbose: z.boolean().default(false) }),
    execute: async ({ order, verbose }) => {
      executed.push(`${order}${verbose ? ' verbose' : ''}`);
      return { order, status: 'shipped' };
    },
  });
  const agent = new Agent({
    name: 'ops',
    instructions: 'You run operations.',
    model: new ScriptedLanguageModel([{ text: 'unused' }]),
    toolRouting: { pool: [lookupOrder] },
  });
  const activities = createActivities({
    agents: AgentRegistry.from([agent]),
    providers: new ProviderRegistry({ env: {} }),
  });
  const env = new MockActivityEnvironment({ workflowExecution: run, heartbeatTimeoutMs: 0 });
  return { executed, activities, env };
}

async function executeOnce(via: ExecuteToolInput['via']) {
  const { executed, activities, env } = setup();
  const description: DescribeAgentResult = await env.run(activities.describeAgent, {
    agentName: 'ops',
    input: 'Where is order A-1?',
    run: { context: {} },
  });
  const input: ExecuteToolInput = {
    agentName: 'ops',
    run,
    step: 1,
    messageCount: 2,
    toolCallId: 'c1',
    toolName: 'lookup_order',
    args: { order: 'A-1' },
    idempotencyKey: 'k1',
    mark: { at: 0, responseId: description.seedId! },
    ...(via ? { via } : {}),
  };
  return { result: await env.run(activities.executeTool, input), executed };
}

describe('executeTool inputs for a callTool target', () => {
  it.each([
    ["0.4.0's, naming the target via callTool", 'callTool' as const],
    ['an earlier workflow’s, without via', undefined],
  ])('runs the pooled target from %s', async (_name, via) => {
    const { result, executed } = await executeOnce(via);
    expect(result).toMatchObject({ kind: 'ok', output: { order: 'A-1', status: 'shipped' } });
    // The arguments are checked again: the schema's default reaches the tool.
    expect(executed).toEqual(['A-1']);
  });
});
