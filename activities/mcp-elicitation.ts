import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { getGlobalLogger } from '../src/logger.js';
import { CANCEL, type McpElicitationAnswer, type McpElicitationHandler } from '../src/mcp/elicitation.js';
import {
  ELICITATION_LIMITS,
  elicitationId,
  elicitationQuestionBytes,
  type ElicitationAsk,
  type ElicitationAskOutcome,
  type ElicitationRecord,
  type RunRef,
} from '../src/protocol/index.js';
import { elicitationAskUpdate } from '../src/protocol/run-messages.js';

/**
 * How one MCP call's questions to the run ended the call, if they did: `pending` (nobody answered while the run held
 * the question: the run waits, then re-issues the call) or `refused` (the run would not keep the question, or the
 * call asked more than it may: the server was answered `cancel` and the model reads an error).
 */
export type ElicitationEnd = { kind: 'pending'; elicitationId: string } | { kind: 'refused'; reason: string };

/**
 * Puts an MCP server's questions during one tool call to the run. Each question is asked once, by update: the run
 * records it (once per id), holds the update until a person answers or the hold ends, and replies with the answer
 * or `pending`. Ids are `<toolCallId>:<hash of the content>:<n>`, the same when a re-issued call asks the same
 * thing again, so an answer is given once and then served from the run's record.
 *
 * The session ends the call (aborting the tool) when the run says `pending` or refuses a question; `end` says
 * which, as a value the activity turns into its result. A call may put at most `ELICITATION_LIMITS.questionsPerCall`
 * questions and `bytesPerCall` bytes to the run; questions past those, or after the session ended, are answered
 * `cancel` here, so a server cannot write to the run's history at will.
 */
export class ElicitationSession {
  private ended: ElicitationEnd | undefined;
  private readonly asked = new Map<string, number>();
  private questions = 0;
  private bytes = 0;

  constructor(
    private readonly options: {
      run: RunRef;
      toolCallId: string;
      toolName: string;
      /** How long the run may hold a question for this attempt. */
      holdMs: number;
      /** Aborted when the session ends the call: the tool's abort controller. */
      abort: AbortController;
    },
  ) {}

  /** How the session ended the call, if it did. */
  get end(): ElicitationEnd | undefined {
    return this.ended;
  }

  /** The handler the MCP call answers its server's questions with. */
  readonly handler: McpElicitationHandler = async (request, { signal }) => {
    if (this.ended) return CANCEL;
    const { serverName, message, requestedSchema } = request;
    const { toolCallId, toolName } = this.options;
    const digest = elicitationId({ toolCallId, serverName, message, requestedSchema }, 0);
    const n = (this.asked.get(digest) ?? 0) + 1;
    this.asked.set(digest, n);
    const ask = {
      id: elicitationId({ toolCallId, serverName, message, requestedSchema }, n),
      toolCallId,
      toolName,
      serverName,
      message,
      requestedSchema,
    };
    const bytes = elicitationQuestionBytes(ask);
    const bound = this.overBound(bytes);
    if (bound) return this.finish({ kind: 'refused', reason: bound });
    this.questions++;
    this.bytes += bytes;
    const outcome = await this.ask({ ...ask, holdMs: this.options.holdMs }, signal);
    if (outcome === undefined) return CANCEL;
    if ('refused' in outcome) return this.finish({ kind: 'refused', reason: outcome.refused });
    if (outcome.kind === 'answered') return toAnswer(outcome.record);
    return this.finish({ kind: 'pending', elicitationId: ask.id });
  };

  /** Why the next question of `bytes` is over this call's bounds, or undefined. */
  private overBound(bytes: number): string | undefined {
    if (bytes > ELICITATION_LIMITS.questionBytes) {
      return `its question is ${bytes} bytes, over the run's limit of ${ELICITATION_LIMITS.questionBytes}`;
    }
    if (this.questions >= ELICITATION_LIMITS.questionsPerCall) {
      return `it asked more than ${ELICITATION_LIMITS.questionsPerCall} questions in one call`;
    }
    if (this.bytes + bytes > ELICITATION_LIMITS.bytesPerCall) {
      return `its questions in one call exceed ${ELICITATION_LIMITS.bytesPerCall} bytes`;
    }
    return undefined;
  }

  /**
   * Asks the run; undefined when the server withdrew the question first (the run drops it when the call ends). A
   * refusal of the run's validator is a value: the call ends with it.
   */
  private async ask(
    ask: ElicitationAsk,
    signal: AbortSignal,
  ): Promise<ElicitationAskOutcome | { refused: string } | undefined> {
    const withdrawn = new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    try {
      return await Promise.race([this.askRun(ask), withdrawn]);
    } catch (error) {
      if (isRefusal(error)) return refusalOf(error);
      // Temporal admits only a few updates in flight per run (10 by default), and held questions count. Asked
      // again unheld, the question is recorded and the call ends "pending" at once.
      try {
        return await Promise.race([this.askRun({ ...ask, holdMs: 0 }), withdrawn]);
      } catch (again) {
        if (isRefusal(again)) return refusalOf(again);
        return { refused: `the run could not be asked (${(again as Error | undefined)?.message ?? String(again)})` };
      }
    }
  }

  private askRun(ask: ElicitationAsk): Promise<ElicitationAskOutcome> {
    const handle = Context.current().client.workflow.getHandle(this.options.run.workflowId, this.options.run.runId);
    return handle.executeUpdate(elicitationAskUpdate, { args: [ask] });
  }

  private finish(end: ElicitationEnd): McpElicitationAnswer {
    // Questions asked at once may end the call more than once: the first end is the call's.
    if (this.ended) return CANCEL;
    this.ended = end;
    if (end.kind === 'refused') {
      getGlobalLogger().warn(
        `MCP call '${this.options.toolName}' ended: ${end.reason.replace(/\.$/, '')}; its server was answered 'cancel'.`,
      );
    }
    // The call ends here; the activity reads why from `end`, not from the abort's reason.
    this.options.abort.abort(new Error(`The MCP call ended while its server asked a person something (${end.kind}).`));
    return CANCEL;
  }
}

/** The run's validator refused the update. By name too: the worker's client may load its own copy of the class. */
function isRefusal(error: unknown): error is WorkflowUpdateFailedError {
  return (
    error instanceof WorkflowUpdateFailedError || (error as Error | undefined)?.name === 'WorkflowUpdateFailedError'
  );
}

function refusalOf(error: WorkflowUpdateFailedError): { refused: string } {
  const cause = error.cause as { message?: string; type?: string } | undefined;
  return { refused: `the run refused its question (${cause?.type ?? 'refused'}): ${cause?.message ?? ''}` };
}

function toAnswer(record: ElicitationRecord): McpElicitationAnswer {
  return record.action === 'accept' ? { action: 'accept', content: record.content ?? {} } : { action: record.action };
}
