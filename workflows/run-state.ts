import {
  ZERO_USAGE,
  addUsage,
  assistantText,
  firstMessages,
  previewOutput,
  previewText,
  serveTranscriptPage,
  type AgentRunInput,
  type CheckedToolCall,
  type GenerateResult,
  type JsonValue,
  type McpListToolsResult,
  type McpListingRecord,
  type McpListingRef,
  type RunContextData,
  type McpServerStatus,
  type RunState,
  type RunStatus,
  type RunningTool,
  type StepSummary,
  type ToolProgress,
  type TranscriptDelta,
  type TranscriptMessage,
  type TranscriptSlice,
  type Usage,
} from '../src/protocol/index.js';
import { CURRENT_RUN_PROTOCOL } from '../src/protocol/run-protocol.js';
import { ApprovalBook } from './approvals.js';
import { ClientToolBook } from './client-tools.js';
import { ElicitationBook } from './elicitations.js';
import { EventLog } from './event-log.js';
import { newCollisions } from './mcp-collisions.js';
import { ModelCallGate } from './model-call-gate.js';
import { RoutingState } from './routing-state.js';
import { RunClock } from './run-clock.js';
import type { LiveEvents } from './live-events.js';
import type { RunStream } from './run-stream.js';
import type { WaitingAttributes } from './waiting-attributes.js';

/**
 * Everything a run knows, and the transitions between its states. Plain data and pure methods: the workflow's
 * handlers and loop call into it, and it is unit-tested without a server. Time comes from `Date`, which the workflow
 * sandbox makes deterministic.
 */
export class AgentRunState {
  status: RunStatus = 'running';
  usage: Usage;
  finishReason = 'unknown';
  /** Set once the state was too large to continue as new (the run goes on in its execution). */
  continuationTooLarge = false;
  /**
   * The last finished step's tool message in the form the next `generate` input carries it, until that input is
   * sent: a run that ends holding one records it (workflows/final-record.ts), since its history carries it nowhere.
   */
  unsentDelta: TranscriptDelta | undefined;
  /**
   * The run protocol this execution follows (`workflows/protocol.ts`), decided before anything else and carried over
   * continue-as-new. Protocol 4 has the run's stream, holds answers during a model call, checks answers flagged
   * `requireAuthorization`; earlier ones follow their release (workflows/legacy/).
   */
  readonly protocol: number;
  /** Holds answers to calls not known yet while a model call is in flight (protocol 4). */
  readonly modelCall: ModelCallGate;
  /** The run's stream (protocol 4); see {@link attachStream}. */
  stream: RunStream | undefined;
  /** The run's events on its live stream on Redis, when its worker publishes there (protocol 4). */
  live: LiveEvents | undefined;
  /** The agent has an `authorizeDecision` hook (known once the agent is described; recorded in its description). */
  authorizesDecisions = false;
  readonly run: RunContextData;
  /** The agent the run was started with. */
  readonly agentName: string;
  /** The time the run records: read it, not `Date`, for anything a client reads (see RunClock). */
  readonly clock = new RunClock();
  readonly events: EventLog;
  readonly approvals: ApprovalBook;
  readonly clientTools: ClientToolBook;
  /** Tool routing: what this run's searches returned (callTool's searched check), warmed embedding models. */
  readonly routing: RoutingState;
  readonly messages: TranscriptMessage[];
  readonly steps: StepSummary[];
  readonly runningTools = new Map<string, RunningTool>();
  readonly elicitations: ElicitationBook;
  /** How long an MCP question waits for a person (set once the description is known). */
  elicitationTimeoutMs: number | undefined;
  /** The MCP listing in effect per server. */
  private readonly mcpListings = new Map<string, McpListingRecord>();
  /** Every listing this execution recorded, by `server@version` (a call in flight may still use an older one). */
  private readonly mcpListingVersions = new Map<string, McpListingRecord>();
  /** Servers whose listing failed in this execution (state only: nothing is recorded from it). */
  private readonly mcpFailures = new Map<string, McpServerStatus>();
  /** Servers still listing after the listing budget (state only). */
  private readonly mcpLate = new Set<string>();

  /**
   * `protocol`: see {@link protocol}. From protocol 2 (v0.2.0) what clients send is bounded and bound to what they
   * saw (decisions echo their request's token, bounded signals); protocol 1 keeps v0.1.0's rules.
   */
  constructor(input: AgentRunInput, protocol: number = CURRENT_RUN_PROTOCOL) {
    const carried = input.continuation;
    const bound = protocol >= 2;
    this.protocol = protocol;
    this.modelCall = new ModelCallGate(protocol >= 4);
    this.agentName = input.agentName;
    this.run = {
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
      context: input.context ?? {},
      // Activities read the run's routing override with its context (see RunContextData.toolRouting).
      ...(input.toolRouting !== undefined ? { toolRouting: input.toolRouting } : {}),
    };
    this.events = new EventLog(carried?.events, this.clock);
    this.approvals = new ApprovalBook(carried ? [...carried.approvals] : [], carried?.earlyApprovals ?? [], {
      bound,
      earlyDecisions: !bound || (carried ? carried.description.approval.earlyDecisions === true : 'unknown'),
    });
    this.clientTools = new ClientToolBook(carried?.earlyToolResults ?? [], bound);
    this.routing = new RoutingState(carried?.routing);
    this.messages = carried ? [...carried.messages] : [];
    this.steps = carried ? [...carried.steps] : [];
    this.usage = carried?.usage ?? ZERO_USAGE;
    this.elicitations = new ElicitationBook(carried?.elicitations ?? []);
    this.elicitationTimeoutMs = input.elicitationTimeoutMs ?? carried?.description.mcp?.elicitationTimeoutMs;
    for (const listing of carried?.mcpListings ?? []) this.keepListing(listing);
  }

  /**
   * Publishes what the run waits for as search attributes from now on: after every event, since each request and
   * each answer emits one once the books have changed.
   */
  publishWaiting(attributes: WaitingAttributes): void {
    this.events.onEmit(() => attributes.sync());
  }

  /** This execution checks answers flagged `requireAuthorization` with the agent's `authorizeDecision` hook. */
  get checksAnswers(): boolean {
    return this.protocol >= 4;
  }

  /** Gives the run its stream: every event emitted from now on is published on it too. */
  attachStream(stream: RunStream): void {
    this.stream = stream;
    this.events.onEmit((event) => stream.publishEvent(event));
  }

  /**
   * Records what `mcpListTools` found for a server (its tools from now on, or that it failed). `late`: it arrived
   * after the listing budget, once the run had gone on without it (protocol 4).
   */
  recordListing(result: McpListToolsResult, late = false): void {
    const flag = late ? { late: true as const } : {};
    if (result.kind === 'failed') {
      const { server, reason, message } = result;
      this.mcpLate.delete(server);
      this.mcpFailures.set(server, { server, status: 'failed', reason, message });
      this.events.emit({ type: 'mcp-server-failed', server, reason, message, ...flag });
      return;
    }
    this.mcpLate.delete(result.listing.server);
    this.mcpFailures.delete(result.listing.server);
    const { server, version, tools, skipped } = result.listing;
    this.keepListing(result.listing);
    this.events.emit({
      type: 'mcp-tools-listed',
      server,
      version,
      tools: tools.length,
      skipped: skipped.length,
      ...flag,
    });
    this.reportCollisions();
  }

  /** A server still listing after the listing budget: the state query shows it as `listing` until it answers. */
  listingLate(server: string): void {
    this.mcpLate.add(server);
  }

  /**
   * Names the tools the worker will refuse because their names collide, once per name (also across
   * continue-as-new: the carried events say which were reported). Only an event: no command depends on it.
   */
  private reportCollisions(): void {
    const known = new Set<string>();
    for (const event of this.events.all()) {
      if (event.type === 'mcp-tools-collided') for (const c of event.collisions) known.add(c.name);
    }
    const { collisions, more } = newCollisions(this.mcpListings.values(), known);
    if (collisions.length > 0) this.events.emit({ type: 'mcp-tools-collided', collisions, more });
  }

  /** The listings in effect, by reference (what model calls and tool calls are given). */
  listingRefs(): McpListingRef[] {
    return [...this.mcpListings.values()].map(({ server, version }) => ({ server, version }));
  }

  /** The listings in effect (carried over continue-as-new). */
  listings(): McpListingRecord[] {
    return [...this.mcpListings.values()];
  }

  /** A listing this execution recorded, for the MCP listing query. */
  listingFor(server: string, version: string): McpListingRecord | null {
    return this.mcpListingVersions.get(`${server}@${version}`) ?? null;
  }

  private keepListing(listing: McpListingRecord): void {
    this.mcpListings.set(listing.server, listing);
    this.mcpListingVersions.set(`${listing.server}@${listing.version}`, listing);
  }

  /** The answer of the state query. */
  snapshot(): RunState {
    // Previews: a person decides on what the state shows, and the full arguments are in the transcript.
    const pendingApprovals = this.approvals.list().map((p) => ({ ...p, args: previewOutput(p.args) }));
    const pendingToolResults = this.clientTools.list();
    const waiting = pendingApprovals.length > 0 || pendingToolResults.length > 0 || this.elicitations.list().length > 0;
    return {
      status: this.status === 'running' && waiting ? 'waiting' : this.status,
      step: this.steps.length,
      usage: this.usage,
      pendingApprovals,
      pendingToolResults,
      pendingElicitations: this.elicitations.list(),
      runningTools: [...this.runningTools.values()],
      messageCount: this.messages.length,
      lastEventSeq: this.events.lastSeq,
      // What the starter stated (a preview): shown as claims, never as who the user is (docs/mcp.md, trust boundary).
      claims: {
        ...(this.run.userId !== undefined ? { userId: this.run.userId } : {}),
        context: previewOutput(this.run.context),
      },
      mcpServers: [
        ...[...this.mcpListings.values()].map(
          (l): McpServerStatus => ({
            server: l.server,
            status: 'listed',
            tools: l.tools.length,
            skipped: l.skipped.length,
          }),
        ),
        ...this.mcpFailures.values(),
        ...[...this.mcpLate].map((server): McpServerStatus => ({ server, status: 'listing' })),
      ],
    };
  }

  /** One page of the transcript, for the transcript query. */
  transcriptPage(runId: string, from: number, to?: number, fromPart = 0): TranscriptSlice {
    return serveTranscriptPage(
      this.messages,
      { from, ...(to !== undefined ? { to } : {}), fromPart },
      {
        runId,
        run: this.run,
      },
    );
  }

  /**
   * Shows a streaming tool's latest yield. Applied only while the call runs and only when newer than what the run
   * has, so a retried attempt's repeated yields are not shown twice. Malformed reports are ignored.
   */
  recordProgress(progress: ToolProgress | null | undefined): void {
    this.showProgress(progress);
  }

  /** {@link recordProgress}, saying whether the yield was shown (the run's stream publishes only those). */
  showProgress(progress: ToolProgress | null | undefined): boolean {
    if (typeof progress?.toolCallId !== 'string' || typeof progress.seq !== 'number') return false;
    const running = this.runningTools.get(progress.toolCallId);
    if (!running || (running.progress && running.progress.seq >= progress.seq)) return false;
    const value = previewOutput(progress.value);
    running.progress = { ...progress, value };
    this.events.emit({ type: 'tool-progress', toolCallId: progress.toolCallId, progressSeq: progress.seq, value });
    return true;
  }

  /** The run's first messages: the system prompt (when not blank) and the input. */
  begin(systemPrompt: string, input: TranscriptMessage[]): void {
    this.messages.push(...firstMessages(systemPrompt, input));
  }

  /** Starts the next step and returns its number (from 1). */
  startStep(): number {
    const step = this.steps.length + 1;
    this.events.emit({ type: 'step-started', step });
    return step;
  }

  /** Appends a model response and announces its text and tool calls. Returns each call's arguments by id. */
  recordResponse(step: number, generated: GenerateResult): Map<string, JsonValue> {
    this.messages.push(...generated.messages);
    this.usage = addUsage(this.usage, generated.usage);
    this.finishReason = generated.finishReason;
    const text = assistantText(generated.messages[generated.messages.length - 1]);
    if (text !== '') this.events.emit({ type: 'text', step, text: previewText(text) });
    const argsById = toolCallArgs(generated.messages);
    for (const call of generated.toolCalls) {
      const args = previewOutput(argsById.get(call.toolCallId) ?? null);
      this.events.emit({ type: 'tool-call', step, toolCallId: call.toolCallId, toolName: call.toolName, args });
    }
    return argsById;
  }

  /** Marks a tool activity as running (shown by the state query until {@link toolFinished}). */
  toolStarted(step: number, call: CheckedToolCall): void {
    const { toolCallId, toolName } = call;
    this.runningTools.set(toolCallId, { toolCallId, toolName, step, startedAt: this.clock.now().toISOString() });
    this.events.emit({ type: 'tool-started', step, toolCallId, toolName });
  }

  toolFinished(toolCallId: string): void {
    this.runningTools.delete(toolCallId);
  }

  /** Closes a step: its tool message (when it called tools) and its summary. */
  finishStep(step: number, generated: GenerateResult, results: StepToolResults): void {
    if (results.parts.length > 0) this.messages.push({ role: 'tool', content: results.parts });
    this.steps.push({
      step,
      finishReason: generated.finishReason,
      usage: generated.usage,
      toolCalls: generated.toolCalls.map((call, i) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        outcome: results.outcomes[i]!,
      })),
    });
    this.events.emit({ type: 'step-finished', step, finishReason: generated.finishReason, usage: generated.usage });
  }

  /** The run completed: its final text. */
  complete(stopReason: string): string {
    const text = assistantText(lastAssistant(this.messages));
    this.status = 'completed';
    this.events.emit({ type: 'finished', text, finishReason: this.finishReason, stopReason });
    return text;
  }

  /** The run was cancelled: nothing it waited for will run, so nothing is pending any more. */
  cancel(): void {
    this.status = 'cancelled';
    this.approvals.abandon();
    this.clientTools.abandon();
    this.elicitations.abandon();
    this.events.emit({ type: 'cancelled' });
  }

  /** The run failed with `message` (and the failure's type, when it has one). */
  fail(message: string, errorType?: string): void {
    this.status = 'failed';
    this.approvals.abandon();
    this.clientTools.abandon();
    this.elicitations.abandon();
    this.events.emit({ type: 'failed', message, ...(errorType ? { errorType } : {}) });
  }
}

/** What a step's tool calls gave the model, in call order. */
export interface StepToolResults {
  parts: Array<Extract<TranscriptMessage, { role: 'tool' }>['content'][number]>;
  outcomes: StepSummary['toolCalls'][number]['outcome'][];
}

/** The arguments of each tool call in the assistant message(s), by tool-call id. */
function toolCallArgs(messages: TranscriptMessage[]): Map<string, JsonValue> {
  const args = new Map<string, JsonValue>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') args.set(part.toolCallId, (part.input ?? null) as JsonValue);
    }
  }
  return args;
}

function lastAssistant(messages: TranscriptMessage[]): TranscriptMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return messages[i];
  return undefined;
}
