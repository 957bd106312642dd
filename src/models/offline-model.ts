import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamResult,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import {
  estimatePromptTokens,
  estimateTokens,
  lastUserText,
  makeUsage,
  resultToStream,
  sleep,
  type StreamPacing,
} from './local-model-support.js';
import { OFFLINE_PROVIDER } from './offline-embedding-model.js';
import { synthesizeArguments, type ArgumentSource } from './schema-arguments.js';
import { contentWords, splitWords } from './words.js';

// The offline embedder lives in its own file; it is exported here too because the two are one feature.
export {
  embedText,
  OFFLINE_PROVIDER,
  OfflineEmbeddingModel,
  type OfflineEmbeddingModelOptions,
} from './offline-embedding-model.js';

/** Model id of {@link OfflineDemoModel}, as in the model string `offline/demo`. */
export const OFFLINE_DEMO_MODEL_ID = 'demo';

/** Names of the tool-routing tools (spec 3.7); the demo model knows how to search and then call through them. */
const SEARCH_TOOLS = 'searchTools';
const CALL_TOOL = 'callTool';
/** Words by which a message refers back to an earlier answer: "email that forecast", "which city was it for?". */
const BACK_REFERENCES = new Set(['that', 'this', 'it', 'those', 'these', 'earlier', 'previous', 'above']);
/** How every answer of the offline model starts: nobody mistakes it for an AI. */
const PREFIX = 'Offline demo model (rule-based, no API key)';

/** Options of {@link OfflineDemoModel}. */
export interface OfflineDemoModelOptions {
  /** Model id reported to the AI SDK. Default `demo`. */
  modelId?: string;
  /**
   * Pause before each answer, in ms (default 0). A demo may set a few hundred ms so people watching a run can see
   * the steps go by; the pause honours the abort signal like a real request.
   */
  latencyMs?: number;
  /**
   * How `doStream` paces the answer (default: each part in one delta, no timer): e.g. `{ chunkChars: 8,
   * chunkDelayMs: 30 }` writes it in pieces of 8 characters, 30 ms apart, as a real model streams, so a person
   * watching the run sees the answer being written.
   */
  stream?: Omit<StreamPacing, 'abortSignal'>;
}

/**
 * An offline stand-in language model (`offline/demo`): NOT an AI. It follows fixed rules so a newcomer without an
 * API key still sees the durable flow (a tool call, an approval, a crash and resume, a final answer):
 *
 * 1. If a tool whose name or description shares words with the last user message has not been called since that
 *    message, it calls the best match, with arguments synthesized from the tool's JSON Schema (strings from the
 *    message, numbers from the message or defaults).
 * 2. With tool routing (`searchTools` / `callTool`) and no direct match, it searches with the user's message, then
 *    calls the top result through `callTool`.
 * 3. Once the tool results are in, it answers with a text summarizing them; with no matching tool, it says so.
 * 4. In a conversation (earlier turns in the prompt), a message that refers back ("that", "it", "this", ...):
 *    - a question whose words name a value an earlier tool call took or returned ("which city was that for?" →
 *      `city`) is answered with that value, newest first, with no tool call;
 *    - otherwise the tool it calls gets the strings the message does not give (a subject, a body) from the latest
 *      earlier turn whose tools returned something: "Email that forecast to ana@example.com" mails that forecast.
 *
 * The answer depends only on the prompt, so a retried `generate` activity gets the same reply, and tool-call ids
 * are derived from the transcript position (stable across retries and workers).
 */
export class OfflineDemoModel implements LanguageModelV4 {
  /** The AI SDK language model interface this class implements. */
  readonly specificationVersion = 'v4';
  /** Always `offline`. */
  readonly provider = OFFLINE_PROVIDER;
  /** `demo` unless set in the options. */
  readonly modelId: string;
  /** No URLs are fetched natively: the AI SDK downloads any files before calling. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly latencyMs: number;
  private readonly pacing: Omit<StreamPacing, 'abortSignal'>;

  constructor(options: OfflineDemoModelOptions = {}) {
    this.modelId = options.modelId ?? OFFLINE_DEMO_MODEL_ID;
    this.latencyMs = options.latencyMs ?? 0;
    this.pacing = { ...options.stream };
  }

  /** Answers one step of the conversation by the rules above. */
  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    if (this.latencyMs > 0) await sleep(this.latencyMs, options.abortSignal);
    options.abortSignal?.throwIfAborted();
    const content = decide(options);
    const output = content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('');
    const calledTool = content.some((part) => part.type === 'tool-call');
    return {
      content,
      finishReason: calledTool ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
      usage: makeUsage(estimatePromptTokens(options), estimateTokens(output)),
      warnings: [],
    };
  }

  /** The same answer as {@link doGenerate}, replayed as a stream paced by the `stream` option. */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    return resultToStream(await this.doGenerate(options), { ...this.pacing, abortSignal: options.abortSignal });
  }
}

/** A function tool as the model sees it, with the words used to match it against the request. */
interface Candidate {
  tool: LanguageModelV4FunctionTool;
  nameWords: string[];
  allWords: string[];
}

/** What happened since the last user message. */
interface Turn {
  message: string;
  /** Names of tools called since the message; for `callTool`, the name of the tool it called. */
  called: Set<string>;
  results: Array<{ toolName: string; output: LanguageModelV4ToolResultOutput; target?: string }>;
  /** Number of assistant messages in the whole prompt: the position that makes tool-call ids deterministic. */
  position: number;
  /** The conversation's earlier turns (before the last user message), oldest first. */
  earlier: EarlierTurn[];
}

/** An earlier turn of a conversation: its user message and its tool calls (a `callTool` call as its target's). */
interface EarlierTurn {
  request: string;
  calls: Array<{ toolName: string; input: unknown; output?: LanguageModelV4ToolResultOutput }>;
}

function decide(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
  const turn = readTurn(options.prompt);
  const tools = (options.tools ?? []).filter((tool): tool is LanguageModelV4FunctionTool => tool.type === 'function');
  const choice = options.toolChoice ?? { type: 'auto' };
  const recalled = turn.called.size === 0 ? recall(turn) : undefined;
  if (choice.type === 'none' || tools.length === 0) return [recalled ?? finalText(turn, tools)];

  if (choice.type === 'tool') {
    const forced = tools.find((tool) => tool.name === choice.toolName);
    if (forced && !turn.called.has(forced.name)) return [callFor(forced, turn)];
    return [finalText(turn, tools)];
  }

  if (recalled) return [recalled];
  const next = nextCall(turn, tools);
  if (next) return [next];
  if (choice.type === 'required') {
    const fallback = tools.find((tool) => !turn.called.has(tool.name)) ?? tools[0];
    if (fallback) return [callFor(fallback, turn)];
  }
  return [finalText(turn, tools)];
}

function nextCall(turn: Turn, tools: LanguageModelV4FunctionTool[]): LanguageModelV4Content | undefined {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const message = new Set(contentWords(turn.message));

  // Routing: after a search, call the best tool it found through callTool (once per tool).
  const callTool = byName.get(CALL_TOOL);
  const lastSearch = turn.results.findLast((result) => result.toolName === SEARCH_TOOLS);
  if (callTool && lastSearch) {
    const found = searchHits(lastSearch.output).find((hit) => !turn.called.has(hit.name));
    if (found) {
      const args = synthesizeArguments(
        found.parametersSchema,
        argumentSource(turn, contentWords(`${found.name} ${found.description}`)),
      );
      return toolCall(CALL_TOOL, { name: found.name, args }, turn);
    }
  }

  // Direct matches: routing tools never match on words (they describe tools in general, not the request).
  const candidates: Candidate[] = tools
    .filter((tool) => tool.name !== SEARCH_TOOLS && tool.name !== CALL_TOOL && !turn.called.has(tool.name))
    .map((tool) => ({
      tool,
      nameWords: contentWords(tool.name),
      allWords: contentWords(`${tool.name} ${tool.description ?? ''}`),
    }));
  let best: { candidate: Candidate; score: number } | undefined;
  for (const candidate of candidates) {
    // A word in the name counts double: `get_weather` should win over a tool that mentions weather in passing.
    const score =
      2 * new Set(candidate.nameWords.filter((word) => message.has(word))).size +
      new Set(candidate.allWords.filter((word) => message.has(word))).size;
    if (score > 0 && (!best || score > best.score)) best = { candidate, score };
  }
  if (best) return callFor(best.candidate.tool, turn);

  const search = byName.get(SEARCH_TOOLS);
  if (search && !turn.called.has(SEARCH_TOOLS)) return toolCall(SEARCH_TOOLS, { query: turn.message }, turn);
  return undefined;
}

function callFor(tool: LanguageModelV4FunctionTool, turn: Turn): LanguageModelV4Content {
  const toolWords = contentWords(`${tool.name} ${tool.description ?? ''}`);
  return toolCall(tool.name, synthesizeArguments(tool.inputSchema, argumentSource(turn, toolWords)), turn);
}

/** What arguments are made of: the message, and the earlier answer it refers back to (rule 4). */
function argumentSource(turn: Turn, toolWords: string[]): ArgumentSource {
  const referred = refersBack(turn.message)
    ? turn.earlier.findLast((earlier) => earlier.calls.some((call) => succeeded(call.output)))
    : undefined;
  if (!referred) return { message: turn.message, toolWords };
  const answer = referred.calls
    .filter((call) => succeeded(call.output))
    .map((call) => `${call.toolName}: ${describeResult(call.toolName, call.output!)}`)
    .join('\n');
  return { message: turn.message, toolWords, earlier: { request: truncate(referred.request, 200), answer } };
}

function refersBack(message: string): boolean {
  return splitWords(message).some((word) => BACK_REFERENCES.has(word));
}

function isQuestion(message: string): boolean {
  const text = message.trim();
  return text.endsWith('?') || /^(which|what|who|whom|whose|where|when|how)\b/i.test(text);
}

function succeeded(output: LanguageModelV4ToolResultOutput | undefined): boolean {
  return output !== undefined && !output.type.startsWith('error') && output.type !== 'execution-denied';
}

/**
 * Rule 4's question: a value an earlier tool call took or returned whose key the question names (newest call first,
 * its result before its arguments), as the answer's text.
 */
function recall(turn: Turn): LanguageModelV4Content | undefined {
  if (turn.earlier.length === 0 || !refersBack(turn.message) || !isQuestion(turn.message)) return undefined;
  const asked = new Set(contentWords(turn.message));
  for (const earlier of turn.earlier.toReversed()) {
    for (const call of earlier.calls.toReversed()) {
      for (const source of [succeeded(call.output) ? outputValue(call.output!) : undefined, call.input]) {
        if (typeof source !== 'object' || source === null || Array.isArray(source)) continue;
        for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
          if (typeof value !== 'string' && typeof value !== 'number') continue;
          if (!contentWords(key).some((word) => asked.has(word))) continue;
          return {
            type: 'text',
            text:
              `${PREFIX}. From earlier in this conversation: the ${key} was ${truncate(String(value), 200)} ` +
              `(${call.toolName}, when you asked "${truncate(earlier.request, 200)}").`,
          };
        }
      }
    }
  }
  return undefined;
}

function outputValue(output: LanguageModelV4ToolResultOutput): unknown {
  if (output.type === 'json') return output.value;
  if (output.type === 'text') return safeParse(output.value);
  return undefined;
}

function toolCall(toolName: string, input: unknown, turn: Turn): LanguageModelV4Content {
  return { type: 'tool-call', toolCallId: `offline-call-${turn.position}`, toolName, input: JSON.stringify(input) };
}

function readTurn(prompt: LanguageModelV4Prompt): Turn {
  const lastUser = prompt.findLastIndex((message) => message.role === 'user');
  const turn: Turn = {
    message: lastUserText(prompt),
    called: new Set(),
    results: [],
    position: prompt.filter((message) => message.role === 'assistant').length,
    earlier: readEarlierTurns(lastUser > 0 ? prompt.slice(0, lastUser) : []),
  };
  const targets = new Map<string, string>();
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type !== 'tool-call') continue;
        turn.called.add(part.toolName);
        const target = part.toolName === CALL_TOOL ? calledThrough(part.input) : undefined;
        if (target) {
          turn.called.add(target);
          targets.set(part.toolCallId, target);
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        turn.results.push({ toolName: part.toolName, output: part.output, target: targets.get(part.toolCallId) });
      }
    }
  }
  return turn;
}

/** The turns of a conversation's transcript: each user message, and the tool calls and results after it. */
function readEarlierTurns(prompt: LanguageModelV4Prompt): EarlierTurn[] {
  const turns: EarlierTurn[] = [];
  const calls = new Map<string, EarlierTurn['calls'][number]>();
  for (const message of prompt) {
    if (message.role === 'user') {
      const request = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      turns.push({ request, calls: [] });
    } else if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type !== 'tool-call') continue;
        const input = typeof part.input === 'string' ? safeParse(part.input) : part.input;
        const target = part.toolName === CALL_TOOL ? calledThrough(input) : undefined;
        const call = {
          toolName: target ?? part.toolName,
          input: target ? (input as { args?: unknown }).args : input,
        };
        turns.at(-1)?.calls.push(call);
        calls.set(part.toolCallId, call);
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        const call = part.type === 'tool-result' ? calls.get(part.toolCallId) : undefined;
        if (call && part.type === 'tool-result') call.output = part.output;
      }
    }
  }
  return turns;
}

function calledThrough(input: unknown): string | undefined {
  const value = typeof input === 'string' ? safeParse(input) : input;
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

interface SearchHit {
  name: string;
  description: string;
  parametersSchema: JSONSchema7;
}

/** Tools listed in a `searchTools` result (`{ tools: [{ name, description, parametersSchema }] }`). */
function searchHits(output: LanguageModelV4ToolResultOutput): SearchHit[] {
  const value = output.type === 'json' ? output.value : output.type === 'text' ? safeParse(output.value) : undefined;
  const tools = (value as { tools?: unknown } | null | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) => {
    const { name, description, parametersSchema } = (tool ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string') return [];
    const schema = (
      typeof parametersSchema === 'object' && parametersSchema !== null ? parametersSchema : {}
    ) as JSONSchema7;
    return [{ name, description: typeof description === 'string' ? description : '', parametersSchema: schema }];
  });
}

function finalText(turn: Turn, tools: LanguageModelV4FunctionTool[]): LanguageModelV4Content {
  const prefix = PREFIX;
  if (turn.results.length > 0) {
    const lines = turn.results.map(
      (result) => `- ${result.target ?? result.toolName}: ${describeResult(result.toolName, result.output)}`,
    );
    return { type: 'text', text: `${prefix}. Here is what the tools returned:\n${lines.join('\n')}` };
  }
  const said = turn.message ? `You said: "${turn.message}". ` : '';
  const why =
    tools.length > 0
      ? `None of the available tools (${tools.map((tool) => tool.name).join(', ')}) matches those words. `
      : 'No tools are available. ';
  return {
    type: 'text',
    text: `${prefix}. ${said}${why}Set OPENAI_API_KEY (and AGENT_MODEL, e.g. openai/gpt-4o-mini) for a real model.`,
  };
}

/** A search is summarized by what it found (its full result repeats every schema); other results as they are. */
function describeResult(toolName: string, output: LanguageModelV4ToolResultOutput): string {
  if (toolName !== SEARCH_TOOLS || output.type.startsWith('error')) return describeOutput(output);
  const found = searchHits(output).map((hit) => hit.name);
  return found.length > 0 ? `found ${found.join(', ')}` : 'found no tool';
}

function describeOutput(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case 'text':
      return truncate(output.value);
    case 'json':
      return truncate(JSON.stringify(output.value));
    case 'error-text':
      return `failed: ${truncate(output.value)}`;
    case 'error-json':
      return `failed: ${truncate(JSON.stringify(output.value))}`;
    case 'execution-denied':
      return `not run (denied${output.reason ? `: ${output.reason}` : ''})`;
    case 'content':
      return truncate(output.value.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' '));
  }
}

function truncate(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
