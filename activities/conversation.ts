// The conversation workflow's activities: a turn's new messages (read from its run's history), the summary that
// compacts older turns (a model call), a sender who is not the conversation's user (the agent's
// `authorizeDecision`), and the agent's compaction settings.
import { Context } from '@temporalio/activity';
import { generateText } from 'ai';
import { transcriptFromHistory } from '../src/history/transcript-from-history.js';
import { getGlobalLogger } from '../src/logger.js';
import { classifyModelError } from '../src/models/classify-model-error.js';
import {
  INPUT_LIMITS,
  assistantText,
  readTranscript,
  truncateUtf8,
  jsonBytes,
  type AuthorizeDecisionResult,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import {
  CONVERSATION_LIMITS,
  isSummaryMessage,
  type AuthorizeConversationMessageInput,
  type ConversationAgentSettings,
  type ConversationTurnRecord,
  type ConversationTurnRecordInput,
  type SummarizeConversationInput,
  type SummarizeConversationResult,
} from '../src/protocol/conversation.js';
import { transcriptQuery } from '../src/protocol/run-messages.js';
import { type ActivityDependencies, requireAgent } from '../src/runtime/dependencies.js';

/** UTF-8 bytes of a summary kept (a longer one is cut): it is carried in every turn's input. */
export const MAX_SUMMARY_BYTES = 16 * 1024;
/** How often the summarizer heartbeats (the workflow's heartbeat timeout for it is 15 s). */
const SUMMARY_HEARTBEAT_MS = 3_000;
/** UTF-8 bytes of the transcript text a summarizer is given (the newest part of what is summarized). */
const MAX_SUMMARIZED_BYTES = 256 * 1024;

const DEFAULT_SUMMARY_INSTRUCTIONS =
  'You summarize a conversation between a user and an assistant so that the assistant can go on with it. Keep ' +
  'names, numbers, dates, decisions, open questions and what the user asked for; leave out pleasantries. Write ' +
  'plain prose, at most a few paragraphs. If an earlier summary is given, fold it in.';

/**
 * The messages turn `turn` added, read from its run once it ended: the run's transcript (rebuilt from its history,
 * else by the transcript query) after its system prompt and input. A cancelled or failed turn adds only the
 * user's message (a half-finished step would leave tool calls without results). A turn larger than
 * `maxTurnBytes` keeps its final answer only. The record repeats the user's message: the conversation's history
 * then holds every message once per turn, where `conversation.history()` reads it with no worker.
 */
export function createConversationTurnMessages() {
  return async function conversationTurnMessages(input: ConversationTurnRecordInput): Promise<ConversationTurnRecord> {
    const { turn, outcome, message } = input;
    if (outcome !== 'completed') return { turn, outcome, messages: [message] };
    const client = Context.current().client.workflow;
    const { runId } = await client.getHandle(input.workflowId).describe();
    let messages = (await transcriptFromHistory(client, input.workflowId, runId)).messages;
    if (!messages) {
      const execution = client.getHandle(input.workflowId, runId);
      messages = (await readTranscript((from, to, fromPart) => execution.query(transcriptQuery, from, to, fromPart), 0))
        .messages;
    }
    const start = messages[0]?.role === 'system' && !isSummaryMessage(messages[0]) ? 1 : 0;
    const added = messages.slice(start + input.inputCount);
    if (jsonBytes(added) <= CONVERSATION_LIMITS.maxTurnBytes) return { turn, outcome, messages: [message, ...added] };
    const answer = assistantText(added.findLast((m) => m.role === 'assistant'));
    return {
      turn,
      outcome,
      trimmed: true,
      messages: [message, { role: 'assistant', content: truncateUtf8(answer, CONVERSATION_LIMITS.maxTurnBytes) }],
    };
  };
}

/**
 * Summarizes older turns with the agent's `summarization.model` (default: the agent's model). No summarizer
 * (`summarization` absent, `false`, or `enabled: false`): no summary, and the conversation drops those turns.
 */
export function createSummarizeConversation(deps: ActivityDependencies) {
  return async function summarizeConversation(input: SummarizeConversationInput): Promise<SummarizeConversationResult> {
    const agent = requireAgent(deps, input.agentName);
    const options = agent.summarization;
    if (!options || options.enabled === false) return {};
    let model;
    try {
      model = deps.providers.resolveLanguageModel(options.model ?? agent.model);
    } catch (err) {
      throw classifyModelError(err);
    }
    const text = transcriptText(input.messages);
    const prompt =
      (input.summary ? `Earlier summary:\n${input.summary}\n\n` : '') +
      `Conversation to summarize:\n${text.length > 0 ? text : '(no text)'}`;
    // Heartbeats while the model writes: a worker that dies mid-summary is noticed within the heartbeat timeout.
    const context = Context.current();
    const beat = setInterval(() => context.heartbeat(), SUMMARY_HEARTBEAT_MS);
    try {
      const result = await generateText({
        model,
        system: options.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS,
        prompt,
        maxOutputTokens: options.maxOutputTokens ?? 1_024,
        abortSignal: context.cancellationSignal,
      });
      return { summary: truncateUtf8(result.text.trim(), MAX_SUMMARY_BYTES) };
    } catch (err) {
      throw classifyModelError(err);
    } finally {
      clearInterval(beat);
    }
  };
}

/** The messages as `role: text` lines (tool calls and results by name), the newest part kept when too long. */
function transcriptText(messages: TranscriptMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      lines.push(`${message.role}: ${message.content}`);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') lines.push(`${message.role}: ${part.text}`);
      else if (part.type === 'tool-call') lines.push(`assistant called ${part.toolName}(${short(part.input)})`);
      else if (part.type === 'tool-result') lines.push(`${part.toolName} returned ${short(part.output)}`);
    }
  }
  const text = lines.join('\n');
  const bytes = jsonBytes(text);
  return bytes <= MAX_SUMMARIZED_BYTES ? text : `…${text.slice(text.length - Math.floor(MAX_SUMMARIZED_BYTES / 3))}`;
}

function short(value: unknown): string {
  return truncateUtf8(JSON.stringify(value) ?? '', 500);
}

/**
 * A message from someone other than the conversation's user is let in only when the agent's `authorizeDecision`
 * hook allows it, asked as a decision on a `conversation.message` request. No hook: refused. A hook that throws:
 * refused.
 */
export function createAuthorizeConversationMessage(deps: ActivityDependencies) {
  return async function authorizeConversationMessage(
    input: AuthorizeConversationMessageInput,
  ): Promise<AuthorizeDecisionResult> {
    const hook = requireAgent(deps, input.agentName).approval?.authorizeDecision;
    if (!hook) return { allowed: false, reason: 'the agent has no authorizeDecision hook.' };
    const toolCallId = `conversation-message-${input.turn}`;
    try {
      const verdict = await hook(
        {
          toolCallId,
          approved: true,
          approver: input.sender,
          ...(input.identity !== undefined ? { identity: input.identity } : {}),
        },
        {
          toolCallId,
          toolName: 'conversation.message',
          args: { conversationId: input.conversationId, sender: input.sender },
          step: input.turn,
          requestedAt: new Date().toISOString(),
        },
        {
          agentName: input.agentName,
          workflowId: input.workflowId,
          runId: input.runId,
          ...(input.userId !== undefined ? { userId: input.userId } : {}),
          conversationId: input.conversationId,
          context: {},
        },
      );
      if (typeof verdict === 'boolean') return verdict ? { allowed: true } : { allowed: false };
      return verdict.allowed === true
        ? { allowed: true }
        : {
            allowed: false,
            ...(verdict.reason ? { reason: truncateUtf8(verdict.reason, INPUT_LIMITS.reasonChars) } : {}),
          };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      getGlobalLogger().warn('authorizeDecision threw; the conversation message is refused', { error: message });
      return { allowed: false, reason: truncateUtf8(`authorizeDecision failed: ${message}`, INPUT_LIMITS.reasonChars) };
    }
  };
}

/** The agent's `summarization` as plain data: its triggers and whether it summarizes. */
export function createDescribeConversation(deps: ActivityDependencies) {
  return async function describeConversation(input: { agentName: string }): Promise<ConversationAgentSettings> {
    const options = requireAgent(deps, input.agentName).summarization;
    if (!options) return { summarize: false };
    return {
      summarize: options.enabled !== false,
      ...(options.triggerMessages !== undefined ? { triggerMessages: options.triggerMessages } : {}),
      ...(options.triggerBytes !== undefined ? { triggerBytes: options.triggerBytes } : {}),
      ...(options.keepMessages !== undefined ? { keepMessages: options.keepMessages } : {}),
    };
  };
}
