// Every HTTP route of `durable-agent/http` (the chat handler, AG-UI, the inbox) fed what careless and hostile clients
// send: malformed JSON, wrong content types, unknown part types, wrong field types, missing ids, huge and deeply
// nested bodies, wrong methods. Each answer must be a 4xx with a code of docs/errors.md, in time, and no run may
// change: the requests name a real chat whose turn waits for an approval, so a request that slipped through would
// decide, answer, stop or queue something.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentHandlerOptions } from '../../src/http/index.js';
import { REFUSAL_CODES } from '../../src/protocol/refusal-codes.js';
import { withAgentWorker, type HarnessClient } from '../support/agent-harness.js';
import { chunksOf, messageOf, userMessage } from '../support/http-chat.js';
import { chatRuns, errorCodeOf, filesAgent, serveFilesApp } from '../support/http-files-app.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const authenticate: AgentHandlerOptions['authenticate'] = (request) => {
  const user = /^Bearer (ada|bob)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  return user ? { userId: user } : null;
};

/** Values of every JSON type, and some that break naive code: each is wrong for a field of another type. */
const WRONG_VALUES: unknown[] = [
  null,
  0,
  -1.5,
  1e308,
  '',
  'x'.repeat(40_000),
  true,
  [],
  [null],
  {},
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
];

/** Bodies no route takes, whatever it expects. */
const GENERIC_BODIES: Array<string | Uint8Array> = [
  '',
  ' ',
  'null',
  'true',
  '1',
  '"x"',
  '[]',
  '{}',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '\u0000',
  new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
  '['.repeat(20_000) + ']'.repeat(20_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  `"${'x'.repeat(2 * 1024 * 1024)}"`,
  JSON.stringify({ messages: Array.from({ length: 5_000 }, () => ({})) }),
];

/** `base` with the field at `path` set to each wrong value, and deleted. */
function mutations(base: Record<string, unknown>, path: string[], keep: (value: unknown) => boolean): string[] {
  const out: string[] = [];
  for (const value of [...WRONG_VALUES.filter((v) => !keep(v)), undefined]) {
    const copy = structuredClone(base);
    let holder = copy;
    for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
    if (value === undefined) delete holder[path.at(-1)!];
    else holder[path.at(-1)!] = value;
    out.push(JSON.stringify(copy));
  }
  return out;
}

const isString = (value: unknown) => typeof value === 'string';

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

describe('every HTTP route under malformed requests', () => {
  it('answers each with a 4xx and a code, in time, and changes no run', async () => {
    const deleted: string[] = [];
    const agent = filesAgent(
      [{ text: 'Deleting.', toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del-a' }] }],
      deleted,
    );
    await withAgentWorker(env, [agent], async (harness) => {
      const server = await serveFilesApp(harness.client, authenticate, { maxBodyBytes: 1024 * 1024 });
      try {
        // A chat whose turn waits for an approval: every request below names it.
        const id = `fuzz${Math.random().toString(36).slice(2, 10)}`;
        const first = await fetch(`${server.url}/api/chat`, {
          method: 'POST',
          headers: { authorization: 'Bearer ada', 'content-type': 'application/json' },
          body: JSON.stringify({ id, messages: [userMessage('delete a.txt')], trigger: 'submit-message' }),
        });
        const message = await messageOf(await chunksOf(first));
        const runs = await chatRuns(harness);
        expect(runs).toHaveLength(1);
        const workflowId = runs[0]!.workflowId;
        const run = harness.client.getRun(workflowId);
        const before = await snapshot(harness, run);
        expect(before.pending).toEqual(['del-a']);

        const cases = fuzzCases(id, encodeURIComponent(workflowId), message);
        expect(cases.length).toBeGreaterThan(300);
        const failures: string[] = [];
        const started = performance.now();
        for (const c of cases) {
          const label = `${c.method} ${c.path.slice(0, 80)} ${c.name}`;
          let response: Response;
          try {
            response = await fetch(`${server.url}${c.path}`, {
              method: c.method,
              headers: { authorization: 'Bearer ada', 'content-type': 'application/json', ...c.headers },
              ...(c.body !== undefined ? { body: c.body as BodyInit } : {}),
              signal: AbortSignal.timeout(5_000),
            });
          } catch (error) {
            failures.push(`${label}: ${(error as Error).name}`);
            continue;
          }
          const text = await response.text();
          const code = errorCodeOf(text);
          if (response.status < 400 || response.status >= 500 || !code || !REFUSAL_CODES.has(code)) {
            failures.push(`${label}: ${response.status} ${text.slice(0, 120)}`);
          }
        }
        console.log(`${cases.length} malformed requests in ${Math.round(performance.now() - started)} ms`);
        expect(failures).toEqual([]);
        // Nothing changed: the same turn waits for the same approval, nothing ran, nothing was queued or started.
        expect(await snapshot(harness, run)).toEqual(before);
        expect(deleted).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });
});

function fuzzCases(id: string, workflowId: string, message: UIMessage): Case[] {
  const cases: Case[] = [];
  const chatBody = { id, messages: [userMessage('delete b.txt', 'u2')], trigger: 'submit-message' };
  const approval = message.parts.find((p) => 'state' in p && p.state === 'approval-requested') as {
    approval: { id: string; signature?: string };
  };
  const approvalMessage = {
    ...message,
    parts: message.parts.map((p) =>
      'state' in p && p.state === 'approval-requested'
        ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } }
        : p,
    ),
  };
  const approvalBody = { id, messages: [userMessage('delete a.txt'), approvalMessage] };
  const agUiBody = {
    threadId: id,
    runId: 'r1',
    messages: [{ id: 'u2', role: 'user', content: 'delete c.txt' }],
    tools: [],
    context: [],
  };
  const inboxApproval = { approved: true, token: approval.approval.signature ?? 't' };
  const posts: Array<{ path: string; bodies: string[] }> = [
    {
      path: '/api/chat',
      bodies: [
        ...mutations(chatBody, ['id'], isString),
        ...mutations(chatBody, ['messages'], () => false),
        ...mutations(chatBody, ['trigger'], () => false).filter((body) => body.includes('"trigger"')),
        ...mutations(approvalBody, ['messages'], () => false),
        JSON.stringify({ ...chatBody, id: '../../etc' }),
        JSON.stringify({ ...chatBody, trigger: 'regenerate-message' }),
        JSON.stringify({ ...chatBody, messages: [] }),
        JSON.stringify({ ...chatBody, messages: [{ id: 'u', role: 'user', parts: [{ type: 'weird', text: 'x' }] }] }),
        JSON.stringify({ ...chatBody, messages: [{ id: 'u', role: 'user', parts: [{ type: 'file', url: 'x' }] }] }),
        JSON.stringify({ ...chatBody, messages: [{ id: 'u', role: 'tool', parts: [] }] }),
        JSON.stringify({ ...chatBody, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: ' ' }] }] }),
        JSON.stringify({
          ...chatBody,
          messages: [{ id: 'u', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }],
        }),
        JSON.stringify({
          ...approvalBody,
          messages: [{ ...approvalMessage, parts: [{ type: 'tool-x', state: 'approval-responded' }] }],
        }),
        JSON.stringify({
          ...chatBody,
          messages: [{ id: 'u'.repeat(300), role: 'user', parts: [{ type: 'text', text: 'x' }] }],
        }),
      ],
    },
    {
      path: `/api/chat/${id}/elicitations/q1`,
      bodies: mutations({ action: 'decline', token: 't' }, ['action'], () => false),
    },
    {
      path: '/api/agui',
      bodies: [
        ...mutations(agUiBody, ['threadId'], isString),
        ...mutations(agUiBody, ['runId'], isString),
        ...mutations(agUiBody, ['messages'], () => false).filter((body) => !body.includes('"messages":[]')),
        JSON.stringify({ ...agUiBody, messages: [{ id: 'u', role: 'user', content: [{ type: 'weird' }] }] }),
        JSON.stringify({ ...agUiBody, messages: [{ id: 'u', role: 'assistant', content: 'hi' }] }),
        JSON.stringify({
          ...agUiBody,
          messages: [{ id: 'u', role: 'user', content: 'x', metadata: { durableAgent: { turn: 99 } } }],
        }),
        JSON.stringify({
          ...agUiBody,
          resume: [{ interruptId: 'forged', status: 'resolved', payload: { approved: true } }],
        }),
        JSON.stringify({
          ...agUiBody,
          resume: Array.from({ length: 100 }, () => ({ interruptId: 'x', status: 'resolved' })),
        }),
        JSON.stringify({ ...agUiBody, resume: [{ interruptId: 'x', status: 'maybe' }] }),
        JSON.stringify({ ...agUiBody, threadId: 'a/b' }),
      ],
    },
    {
      path: `/api/inbox/runs/${workflowId}/approvals/del-a`,
      bodies: [
        ...mutations(inboxApproval, ['approved'], (v) => typeof v === 'boolean'),
        ...mutations(inboxApproval, ['token'], isString),
        JSON.stringify({ ...inboxApproval, token: 'forged' }),
        JSON.stringify({ ...inboxApproval, extra: 1 }),
      ],
    },
    { path: `/api/inbox/runs/${workflowId}/approvals/nope`, bodies: [JSON.stringify(inboxApproval)] },
    {
      path: `/api/inbox/runs/${workflowId}/elicitations/q1`,
      bodies: mutations({ action: 'decline', token: 't' }, ['action'], () => false),
    },
    {
      path: `/api/inbox/runs/${workflowId}/tool-results/del-a`,
      bodies: [
        ...mutations({ output: 1 }, ['isError'], (v) => typeof v === 'boolean').filter((body) =>
          body.includes('isError'),
        ),
        JSON.stringify({ output: 1, isError: false, extra: true }),
        JSON.stringify({}),
      ],
    },
  ];
  for (const { path, bodies } of posts) {
    for (const body of [...GENERIC_BODIES, ...bodies]) {
      cases.push({ name: `body ${describeBody(body)}`, method: 'POST', path, body });
    }
    const valid = bodies[0]!;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      cases.push({
        name: `content-type ${type || '(none)'}`,
        method: 'POST',
        path,
        headers: { 'content-type': type },
        body: valid,
      });
    }
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      cases.push({ name: 'wrong method', method, path, ...(method !== 'GET' ? { body: valid } : {}) });
    }
  }
  // Routes that take no body: wrong methods, missing and malformed ids.
  for (const path of [
    `/api/chat/${id}/stream`,
    '/api/inbox',
    `/api/inbox/runs/${workflowId}`,
    `/api/inbox/runs/${workflowId}/stream`,
  ]) {
    for (const method of ['POST', 'PUT', 'DELETE']) cases.push({ name: 'wrong method', method, path, body: '{}' });
  }
  for (const method of ['GET', 'PUT', 'DELETE'])
    cases.push({ name: 'wrong method', method, path: `/api/chat/${id}/stop` });
  const badPaths = [
    '/api/chat//stop',
    '/api/chat/%ZZ/stream',
    `/api/chat/${'x'.repeat(200)}/stream`,
    '/api/chat/a%2Fb/stream',
    `/api/chat/${id}/elicitations/${'q'.repeat(400)}`,
    `/api/chat/${id}/nothing`,
    '/api/inbox/runs/',
    '/api/inbox/runs/%ZZ',
    `/api/inbox/runs/${'w'.repeat(1_100)}`,
    `/api/inbox/runs/${workflowId}/approvals`,
    `/api/inbox/runs/${workflowId}/nothing/x`,
    '/api/inbox/runs/no-such-run',
    '/api/nothing',
    '/',
  ];
  for (const path of badPaths) {
    cases.push({ name: 'bad path', method: path.includes('elicitations') ? 'POST' : 'GET', path, body: undefined });
  }
  // No user, another user.
  cases.push({
    name: 'no user',
    method: 'POST',
    path: '/api/agui',
    headers: { authorization: '' },
    body: JSON.stringify(agUiBody),
  });
  cases.push({
    name: 'another user',
    method: 'POST',
    path: `/api/inbox/runs/${workflowId}/approvals/del-a`,
    headers: { authorization: 'Bearer bob' },
    body: JSON.stringify(inboxApproval),
  });
  return cases;
}

function describeBody(body: string | Uint8Array): string {
  if (typeof body !== 'string') return `${body.byteLength} raw bytes`;
  return body.length > 60 ? `${body.slice(0, 40)}… (${body.length} chars)` : body;
}

/** What a request that slipped through would change: the run's state, the runs, the conversations. */
async function snapshot(harness: HarnessClient, run: ReturnType<HarnessClient['client']['getRun']>) {
  const state = await run.state();
  const workflows = [];
  for await (const w of harness.client.temporal.workflow.list({ query: `TaskQueue = '${harness.taskQueue}'` })) {
    workflows.push(`${w.type} ${w.workflowId} ${w.status.name}`);
  }
  return {
    status: state.status,
    step: state.step,
    pending: state.pendingApprovals.map((p) => p.toolCallId),
    workflows: workflows.sort(),
  };
}
