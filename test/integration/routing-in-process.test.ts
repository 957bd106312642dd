// Tool routing without Temporal: the router's real searchTools/callTool tools in an AI SDK generateText loop, run
// through the library's tool pipeline, with a scripted model (it records every request, so what the model was
// shown is asserted, not assumed).
import { generateText, isStepCount } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createToolRouter, type ToolRouter } from '../../src/routing/tool-router.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool } from '../../src/tool/tool.js';

const calls: string[] = [];
const getWeather = createTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => (calls.push(`get_weather:${city}`), { city, tempC: 7 }),
});
const wireMoney = createTool({
  name: 'wire_money',
  description: 'Transfer money to a bank account.',
  parameters: z.object({ amount: z.number(), iban: z.string() }),
  needsApproval: true,
  execute: async ({ amount }) => (calls.push(`wire_money:${amount}`), { sent: amount }),
});
const fillers = Array.from({ length: 30 }, (_, i) =>
  createTool({
    name: `report_${i}`,
    description: `Quarterly report number ${i} for finance.`,
    parameters: z.object({}),
    execute: async () => i,
  }),
);

/** The visible tools as an AI SDK tool set whose execute runs our pipeline (what an in-process loop does). */
function aiSdkTools(router: ToolRouter, operationId: string) {
  return new ToolManager(router.visibleTools()).prepareToolsForExecution((tool) => async (args, options) => {
    const outcome = await runToolPipeline({
      tool,
      args,
      toolCallId: options.toolCallId,
      options: createToolExecuteOptions({
        toolName: tool.name,
        toolCallId: options.toolCallId,
        operationId,
        messages: options.messages,
      }),
    });
    if (outcome.kind === 'denied') throw outcome.error;
    return outcome.output;
  });
}

describe('tool routing in-process (AI SDK generateText, no Temporal)', () => {
  it('shows only the routing tools, searches, then calls the found tool through callTool', async () => {
    calls.length = 0;
    const agent = new Agent({
      name: 'a',
      instructions: 'x',
      tools: [getWeather, wireMoney, ...fillers],
      toolRouting: {},
    });
    const router = createToolRouter({ tools: () => agent.getToolManager(), config: agent.toolRouting || undefined });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'searchTools', input: { query: 'weather in a city', topK: 2 } }] },
      { toolCalls: [{ toolName: 'callTool', input: { name: 'get_weather', args: '{"city":"Oslo"}' } }] },
      { text: 'It is 7°C in Oslo.' },
    ]);
    const result = await generateText({
      model,
      prompt: 'How cold is it in Oslo?',
      tools: aiSdkTools(router, 'run-oslo'),
      stopWhen: isStepCount(5),
    });
    expect(result.text).toBe('It is 7°C in Oslo.');
    expect(calls).toEqual(['get_weather:Oslo']);
    // The model was offered two tools, not thirty-two.
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['searchTools', 'callTool']);
    const [search, call] = result.steps.flatMap((step) => step.toolResults);
    expect(search!.output).toMatchObject({
      query: 'weather in a city',
      tools: [{ name: 'get_weather', parametersSchema: { properties: { city: { type: 'string' } } } }],
    });
    expect(call!.output).toEqual({ city: 'Oslo', tempC: 7 });
  });

  it('lets the model recover from calling before searching, and asks for approval through callTool', async () => {
    calls.length = 0;
    const approvals: unknown[] = [];
    const router = createToolRouter({
      tools: new ToolManager([getWeather, wireMoney, ...fillers]),
      approve: ({ tool, args }) => (approvals.push({ tool: tool.name, args }), true),
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'callTool', input: { name: 'wire_money', args: { amount: 5, iban: 'DE00' } } }] },
      { toolCalls: [{ toolName: 'searchTools', input: { query: 'transfer money to a bank account' } }] },
      { toolCalls: [{ toolName: 'callTool', input: { name: 'wire_money', args: { amount: 5, iban: 'DE00' } } }] },
      { text: 'Sent.' },
    ]);
    const result = await generateText({
      model,
      prompt: 'Send 5 euros to DE00.',
      tools: aiSdkTools(router, 'run-wire'),
      stopWhen: isStepCount(6),
    });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output));
    expect(outputs[0]).toMatchObject({ error: true, reason: 'not-searched', requestedTool: 'wire_money' });
    expect(outputs[1]).toMatchObject({ tools: [{ name: 'wire_money' }] });
    expect(outputs[2]).toEqual({ sent: 5 });
    expect(approvals).toEqual([{ tool: 'wire_money', args: { amount: 5, iban: 'DE00' } }]);
    expect(calls).toEqual(['wire_money:5']);
    expect(result.text).toBe('Sent.');
  });
});
