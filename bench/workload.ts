// The one workload every runtime under test runs: `toolSteps` model steps that each call the `lookup` tool once,
// then one step that answers with text. The model is scripted and answers at once (no I/O, no timers), so what
// is measured is the runtime around it. durable-agent, the in-process AI SDK loop and the @temporalio/ai-sdk
// worker (./temporal-ai-sdk/scripted-model.mjs) get the same replies, tool-call ids, usage and tool outputs.
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../src/models/scripted-model.js';
import { createTool } from '../src/tool/tool.js';
import { lookupOutput } from './lookup-output.mjs';

/** One run's shape: how many tool-calling steps, and how large each tool output is. */
export interface WorkloadSpec {
  toolSteps: number;
  bytes: number;
  /** The tool runs as a local activity (`activity: { local: true }`). */
  localTool?: boolean;
  /** The tool needs a person's approval (runs wait for it before their first tool call). */
  approval?: boolean;
  /**
   * A conversation's agent (`toolSteps` 0): the model answers every turn with the final text, and older turns are
   * summarized by a scripted summarizer past 20 messages, keeping 6 (a conversation's `compaction` can raise that).
   */
  chat?: boolean;
}

export const SYSTEM_PROMPT = 'You are a benchmark agent. Call lookup when told to, then answer briefly.';
export const USER_PROMPT = 'Look the keys up one by one, then say done.';
export const TOOL_DESCRIPTION = 'Looks a key up and returns its data.';
export const FINAL_TEXT = 'done';

/** Fixed usage, so no runtime pays for estimating tokens from the prompt. */
const USAGE = { inputTokens: 10, outputTokens: 5 };

const lookupParameters = z.object({ key: z.string(), bytes: z.number().int() });

/** Model steps per run (tool steps plus the final text step): what "per step" divides by. */
export function modelSteps(spec: WorkloadSpec): number {
  return spec.toolSteps + 1;
}

/** The agent name that hosts one spec on durable-agent's worker. */
export function agentName(spec: WorkloadSpec): string {
  const flags = `${spec.localTool ? '-local' : ''}${spec.approval ? '-approval' : ''}${spec.chat ? '-chat' : ''}`;
  return `bench-t${spec.toolSteps}-b${spec.bytes}${flags}`;
}

/** The model id that carries one spec to the @temporalio/ai-sdk worker's scripted provider. */
export function scriptedModelId(spec: WorkloadSpec): string {
  return `scripted:${spec.toolSteps}:${spec.bytes}`;
}

/** The script: stateless (`assistant-turns`), so concurrent runs on one model instance each get their own step. */
export function scriptedModel(spec: WorkloadSpec): ScriptedLanguageModel {
  const steps: ScriptedReply[] = [];
  for (let i = 0; i < spec.toolSteps; i++) {
    steps.push({
      toolCalls: [{ toolName: 'lookup', input: { key: `k${i}`, bytes: spec.bytes }, toolCallId: `call_${i}_0` }],
      usage: USAGE,
    });
  }
  steps.push({ text: FINAL_TEXT, usage: USAGE });
  // No prompts kept: a bench worker answers thousands of runs, and the memory sections measure the runtime's.
  return new ScriptedLanguageModel({
    steps,
    stepSelection: 'assistant-turns',
    modelId: scriptedModelId(spec),
    recordRequests: false,
  });
}

/** Compaction of a chat spec's conversations (the summarizer answers at once, as the model does). */
export const CHAT_COMPACTION = { triggerMessages: 20, keepMessages: 6 };

/** A model that answers `text` to any prompt, any number of times. */
function answeringModel(text: string, modelId: string): ScriptedLanguageModel {
  const reply: ScriptedReply = { text, usage: USAGE };
  // Stateless: the step is the count of assistant messages in the prompt, each step the same answer.
  return new ScriptedLanguageModel({
    steps: Array.from({ length: 100_000 }, () => reply),
    stepSelection: 'assistant-turns',
    modelId,
    // Thousands of idle conversations are measured on one worker: their prompts must not stay in the model.
    recordRequests: false,
  });
}

/** The durable-agent agent for one spec (a model instance of its own; the tool is the same everywhere). */
export function benchAgent(spec: WorkloadSpec): Agent {
  if (spec.chat) {
    return new Agent({
      name: agentName(spec),
      instructions: SYSTEM_PROMPT,
      model: answeringModel(FINAL_TEXT, 'scripted-chat'),
      maxSteps: 1,
      summarization: {
        model: answeringModel('summary of the earlier turns', 'scripted-summarizer'),
        ...CHAT_COMPACTION,
      },
    });
  }
  return new Agent({
    name: agentName(spec),
    instructions: SYSTEM_PROMPT,
    model: scriptedModel(spec),
    maxSteps: modelSteps(spec),
    tools: [
      createTool({
        name: 'lookup',
        description: TOOL_DESCRIPTION,
        parameters: lookupParameters,
        ...(spec.localTool ? { activity: { local: true } } : {}),
        ...(spec.approval ? { needsApproval: true } : {}),
        execute: async (args) => lookupOutput(args),
      }),
    ],
  });
}

/** The same run as a plain in-process AI SDK loop: `generateText` with a real `tool({ execute })`. */
export async function runInProcess(spec: WorkloadSpec): Promise<{ text: string; steps: number }> {
  const result = await generateText({
    model: scriptedModel(spec),
    system: SYSTEM_PROMPT,
    prompt: USER_PROMPT,
    tools: {
      lookup: tool({
        description: TOOL_DESCRIPTION,
        inputSchema: lookupParameters,
        execute: async (args) => lookupOutput(args),
      }),
    },
    stopWhen: isStepCount(modelSteps(spec)),
  });
  return { text: result.text, steps: result.steps.length };
}
