// What every route does with a chat's turns: who asks, which run is theirs, and the refusals they share.
import { timingSafeEqual } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client.js';
import type { AgentRun } from '../client/agent-run.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import type { AgentHandlerOptions, AuthenticatedUser, DEFAULTS } from './handler-options.js';
import { HttpRefusal } from './http-refusal.js';

export type Settings = typeof DEFAULTS;

export interface RequestContext {
  request: Request;
  user: AuthenticatedUser;
  /** The workflow id of a chat's turns: the user is part of it, so another user's chat is never found. */
  turnId: (chatId: string) => string;
  settings: Settings;
  onError: (error: unknown, request: Request) => void;
}

/** The chat's latest turn, if it is this user's: its run pinned to its first execution, and whether it runs. */
export async function findTurn(
  client: AgentClient,
  context: RequestContext,
  chatId: string,
): Promise<{ run: AgentRun; running: boolean; messageId: string } | undefined> {
  const workflowId = context.turnId(chatId);
  let description;
  try {
    description = await client.temporal.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  // The workflow id already names the user; the memo is checked too, so a run started otherwise is never served.
  if (description.memo?.webUser !== context.user.userId) return undefined;
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
  return {
    run: client.getRun(workflowId, { firstExecutionRunId: firstRunId }),
    running: description.status.name === 'RUNNING',
    messageId: `msg-${firstRunId}`,
  };
}

export function sameToken(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function notFound(message: string): HttpRefusal {
  return new HttpRefusal(404, RefusalCode.HttpNotFound, message);
}

export function turnInProgress(): HttpRefusal {
  return new HttpRefusal(
    409,
    RefusalCode.HttpTurnInProgress,
    "This chat's turn is still running: resume it (GET …/chat/:id/stream), wait for it, or stop it first.",
  );
}

/** Starts the chat's next turn on `text`; refused while a turn of the chat runs. */
export async function startTurn(
  options: AgentHandlerOptions,
  context: RequestContext,
  chatId: string,
  text: string,
): Promise<AgentRun> {
  const existing = await findTurn(options.client, context, chatId);
  if (existing?.running) throw turnInProgress();
  const extra = (await options.startOptions?.({ user: context.user, chatId, request: context.request })) ?? {};
  const { userId } = context.user;
  try {
    return await options.client.start(options.agent, text, {
      ...extra,
      userId,
      conversationId: chatId,
      workflowId: context.turnId(chatId),
      workflow: { ...extra.workflow, memo: { ...extra.workflow?.memo, webUser: userId, webChat: chatId } },
    });
  } catch (error) {
    // Two tabs sending at once: the second finds the first's turn running.
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw turnInProgress();
    throw error;
  }
}
