// What waits for people, found through Temporal visibility: runs on the suite's dev server (which registers
// durable-agent's search attributes) publish their agent, user and conversation once, and what they wait for
// (approval, MCP question, client-side tool) with since when, only when that changes; decisions and answers from
// someone other than the run's user go through the agent's authorizeDecision. A namespace without the attributes,
// and a worker told not to publish them, run the same flows with no upsert at all.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentApprovalOptions } from '../../src/agent/types.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import {
  ELICITATION_REQUEST_TOOL_NAME,
  SEARCH_ATTRIBUTE_KEYS as KEYS,
  userKey,
  type ApprovalDecision,
  type PendingApproval,
} from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { recordHistory, withAgentWorker, type HarnessOptions } from '../support/agent-harness.js';
import type { History } from '../support/history.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await mcp.disconnect();
  await stopAll();
  await env?.teardown();
});

/** What a hook saw: every decision it was asked about, with its request's tool name. */
type Asked = Array<{ approver: string | undefined; toolName: string; args: unknown }>;

/** Lets `rita` decide on anyone's run; records what it was asked. */
function ritaOnly(asked: Asked): AgentApprovalOptions {
  return {
    authorizeDecision: (decision: ApprovalDecision, request: PendingApproval) => {
      asked.push({ approver: decision.approver, toolName: request.toolName, args: request.args });
      return decision.approver === 'rita' || decision.approver === 'ada'
        ? { allowed: true, approver: `verified:${decision.approver}` }
        : { allowed: false, reason: `${decision.approver ?? 'nobody'} reviews nothing here` };
    },
  };
}

/** `send_email` needs approval, `pick_color` is client-side; the scripted model calls what `first` names. */
function inboxAgent(first: Array<'send_email' | 'pick_color' | 'local_elicit'>, approval?: AgentApprovalOptions) {
  const sendEmail = createTool({
    name: 'send_email',
    description: 'Sends an email.',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: async ({ to }) => `sent to ${to}`,
  });
  const pickColor = createTool({
    name: 'pick_color',
    description: 'Asks the page for a color.',
    parameters: z.object({ of: z.string() }),
  });
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      {
        toolCalls: first.map((toolName, i) => ({
          toolName,
          toolCallId: `call-${i}`,
          input:
            toolName === 'send_email' ? { to: 'team@example.com' } : toolName === 'pick_color' ? { of: 'sky' } : {},
        })),
      },
      { text: 'Done.' },
    ],
  });
  return new Agent({
    name: 'inbox-agent',
    instructions: '',
    model,
    tools: [sendEmail, pickColor],
    ...(first.includes('local_elicit') ? { mcp } : {}),
    ...(approval ? { approval } : {}),
  });
}

/** The run as a visibility query finds it (by id and what it waits for), once the query finds it. */
async function listed(client: Client, run: AgentRun, filter: string): Promise<WorkflowExecutionInfo | undefined> {
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${run.id}' AND ${filter}` })) {
    return execution;
  }
  return undefined;
}

async function waitingKinds(client: Client, run: AgentRun): Promise<string[] | undefined> {
  const found = await listed(client, run, `${KEYS.waiting.name} IN ('approval', 'elicitation', 'client-tool')`);
  return found?.typedSearchAttributes.get(KEYS.waiting);
}

/** Upserts of durable-agent's attributes (patches upsert Temporal's own `TemporalChangeVersion`, not counted). */
function upserts(history: History): number {
  return (history.events ?? []).filter((e) =>
    Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).some((key) =>
      key.startsWith('DurableAgent'),
    ),
  ).length;
}

/** Whether the recorded `describeAgent` result says the namespace has the attributes. */
function describedWithAttributes(history: History): boolean {
  return (history.events ?? []).some((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.result?.payloads?.[0]?.data : undefined;
    return data ? Buffer.from(data).toString('utf8').includes('"searchAttributes":true') : false;
  });
}

describe('runs publish what they wait for', () => {
  it('an approval: found by what it waits for, who asked and since when; cleared once decided', async () => {
    await withAgentWorker(env, [inboxAgent(['send_email'])], async ({ start }) => {
      const run = await start('inbox-agent', 'Email the team', {
        userId: 'ada',
        conversationId: 'c-1',
        workflowId: randomWorkflowId('inbox-approval'),
      });
      await expect.poll(() => waitingKinds(env.client, run), { timeout: 20_000 }).toEqual(['approval']);
      // The user is published as a hash of its id (search attributes are stored unencrypted).
      const found = await listed(env.client, run, `${KEYS.user.name} = '${userKey('ada')}'`);
      expect(found?.typedSearchAttributes.get(KEYS.user)).toBe(userKey('ada'));
      expect(userKey('ada')).toMatch(/^[0-9a-f]{24}$/);
      expect(found?.typedSearchAttributes.get(KEYS.agent)).toBe('inbox-agent');
      expect(found?.typedSearchAttributes.get(KEYS.conversation)).toBe('c-1');
      const [pending] = (await run.state()).pendingApprovals;
      expect(found?.typedSearchAttributes.get(KEYS.waitingSince)?.toISOString()).toBe(pending!.requestedAt);

      await run.approve(pending!.toolCallId, { approver: 'ada' });
      expect((await run.result()).text).toBe('Done.');
      const history = await run.handle.fetchHistory();
      // The identity once, then waiting and cleared: three upserts for one wait.
      expect(upserts(history)).toBe(3);
      expect(describedWithAttributes(history)).toBe(true);
      expect(await waitingKinds(env.client, run)).toBeUndefined();
      await recordHistory('inbox-approval', env, run.id);
    });
  });

  it('an approval and a client-side tool at once: both kinds, then one, then none, since the first', async () => {
    await withAgentWorker(env, [inboxAgent(['send_email', 'pick_color'])], async ({ start }) => {
      const run = await start('inbox-agent', 'Email and pick', { userId: 'ada' });
      await expect.poll(() => waitingKinds(env.client, run), { timeout: 20_000 }).toEqual(['approval', 'client-tool']);
      const state = await run.state();
      expect(state.pendingToolResults[0]?.requestedAt).toEqual(expect.any(String));
      const since = (await listed(env.client, run, "ExecutionStatus = 'Running'"))?.typedSearchAttributes.get(
        KEYS.waitingSince,
      );
      await run.approve('call-0', { approver: 'ada' });
      await expect.poll(() => waitingKinds(env.client, run), { timeout: 20_000 }).toEqual(['client-tool']);
      const still = await listed(env.client, run, "ExecutionStatus = 'Running'");
      expect(still?.typedSearchAttributes.get(KEYS.waitingSince)).toEqual(since);
      await run.submitToolResult('call-1', 'blue');
      expect((await run.result()).text).toBe('Done.');
      // The identity, then one per change of kinds: approval, approval + client-tool (the step's second call, asked
      // in the same task), client-tool, none.
      expect(upserts(await run.handle.fetchHistory())).toBe(5);
      await recordHistory('inbox-waiting-kinds', env, run.id);
    });
  });

  it('an MCP question: answered by a reviewer only when the agent’s authorizeDecision allows them', async () => {
    const asked: Asked = [];
    await withAgentWorker(env, [inboxAgent(['local_elicit'], ritaOnly(asked))], async ({ start }) => {
      const run = await start('inbox-agent', 'Who am I?', { userId: 'ada' });
      await expect.poll(() => waitingKinds(env.client, run), { timeout: 30_000 }).toEqual(['elicitation']);
      const [question] = (await run.state()).pendingElicitations;
      const answer = { action: 'accept' as const, content: { name: 'Ada' } };
      const refused = await run
        .respondToElicitation(question!.id, answer, { responder: 'mallory', requireAuthorization: true })
        .catch((error: unknown) => error);
      expect(RunRequestRejectedError.isInstance(refused) && refused.code).toBe('Elicitation.NotAuthorized');
      expect((await run.state()).pendingElicitations).toHaveLength(1);

      const record = await run.respondToElicitation(question!.id, answer, {
        responder: 'rita',
        requireAuthorization: true,
      });
      expect(record).toMatchObject({ action: 'accept', responder: 'verified:rita' });
      expect(asked.map((a) => [a.approver, a.toolName])).toEqual([
        ['mallory', ELICITATION_REQUEST_TOOL_NAME],
        ['rita', ELICITATION_REQUEST_TOOL_NAME],
      ]);
      expect(asked[0]!.args).toMatchObject({ questionId: question!.id, serverName: 'local', toolName: 'local_elicit' });
      await run.result();
      expect(await waitingKinds(env.client, run)).toBeUndefined();
      await recordHistory('inbox-elicitation-checked', env, run.id);
    });
  });

  it('a reviewer’s decision is refused when the agent has no authorizeDecision, and checked when it has one', async () => {
    await withAgentWorker(env, [inboxAgent(['send_email'])], async ({ start }) => {
      const run = await start('inbox-agent', 'Email the team', { userId: 'ada' });
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
      const refused = await run
        .approve('call-0', { approver: 'rita', requireAuthorization: true })
        .catch((error: unknown) => error);
      expect(RunRequestRejectedError.isInstance(refused) && refused.code).toBe('Approval.NotAuthorized');
      const question = await run
        .respondToElicitation('q', { action: 'cancel' }, { requireAuthorization: true, token: 't' })
        .catch((error: unknown) => error);
      // Refused for what it is (no such question) before the check: the validator names the first rule broken.
      expect(RunRequestRejectedError.isInstance(question) && question.code).toBe('Elicitation.UnknownQuestion');
      await expect(run.approve('call-0', { requireAuthorization: true, signal: true })).rejects.toThrow(TypeError);
      await run.approve('call-0', { approver: 'ada' });
      await run.result();
    });
    const asked: Asked = [];
    await withAgentWorker(env, [inboxAgent(['send_email'], ritaOnly(asked))], async ({ start }) => {
      const run = await start('inbox-agent', 'Email the team', { userId: 'ada' });
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
      const record = await run.approve('call-0', { approver: 'rita', requireAuthorization: true });
      expect(record).toMatchObject({ approved: true, approver: 'verified:rita', approverVerified: true });
      expect(asked.map((a) => a.toolName)).toEqual(['send_email']);
      await run.result();
    });
  });
});

describe('runs that must not publish', () => {
  it('a worker told not to publish them upserts nothing', async () => {
    const options: HarnessOptions = { searchAttributes: false };
    await withAgentWorker(
      env,
      [inboxAgent(['send_email'])],
      async ({ start }) => {
        const run = await start('inbox-agent', 'Email the team', { userId: 'ada' });
        await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
        await run.approve('call-0', { approver: 'ada' });
        await run.result();
        const history = await run.handle.fetchHistory();
        expect(upserts(history)).toBe(0);
        expect(describedWithAttributes(history)).toBe(false);
      },
      options,
    );
  });

  it('a namespace without the attributes keeps working, with no upsert', async () => {
    const namespace = `no-attributes-${randomUUID().slice(0, 8)}`;
    await env.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    // A new namespace reaches every service of the server within the namespace cache's refresh.
    await expect
      .poll(
        () =>
          env.client.connection.workflowService.describeNamespace({ namespace }).then(
            () => true,
            () => false,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    const { Client } = await import('@temporalio/client');
    const other = new Client({ connection: env.connection, namespace });
    const scoped = { ...env, namespace, client: other } as TestWorkflowEnvironment;
    await withAgentWorker(scoped, [inboxAgent(['send_email'])], async ({ taskQueue }) => {
      const client = new AgentClient({ client: other, taskQueue });
      // The namespace may take a few more seconds to take new runs everywhere.
      let run: AgentRun | undefined;
      await expect
        .poll(
          async () =>
            (run = await client
              .start('inbox-agent', 'Email the team', { userId: 'ada', workflow: { workflowExecutionTimeout: '2m' } })
              .catch(() => undefined)),
          { timeout: 30_000, interval: 1_000 },
        )
        .toBeDefined();
      await expect.poll(async () => (await run!.state()).pendingApprovals.length, { timeout: 30_000 }).toBe(1);
      await run!.approve('call-0', { approver: 'ada' });
      expect((await run!.result()).text).toBe('Done.');
      const history = await run!.handle.fetchHistory();
      expect(upserts(history)).toBe(0);
      expect(describedWithAttributes(history)).toBe(false);
    });
  });
});
