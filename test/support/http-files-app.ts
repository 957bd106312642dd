// The app the hostile-client HTTP tests (http-fuzz, http-hostile) attack: a `files` agent whose `delete_file` needs an
// approval (so a turn waits on it, and a request that slipped through would decide it), its chat handler and inbox
// mounted side by side on one real HTTP server, the chat turns' runs, and the error code of a refused request.
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentClient } from '../../src/client/agent-client.js';
import { createAgentHandler, createInboxHandler, type AgentHandlerOptions } from '../../src/http/index.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import type { HarnessClient } from './agent-harness.js';
import { serveHandler, type TestHttpServer } from './http-chat.js';

/** The `files` agent on a scripted model: `delete_file` (needs approval; pushes each deleted path) and `list_files`. */
export function filesAgent(replies: ScriptedReply[], deleted: string[] = []): Agent {
  const deleteFile = createTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const listFiles = createTool({
    name: 'list_files',
    description: 'Lists files.',
    parameters: z.object({}),
    execute: async () => ['a.txt'],
  });
  return new Agent({
    name: 'files',
    instructions: '',
    model: new ScriptedLanguageModel(replies),
    tools: [deleteFile, listFiles],
  });
}

/**
 * The `files` chat handler and the inbox, side by side on one server, as an app mounts them: paths with `/inbox` go
 * to the inbox. Errors are not logged (the tests provoke thousands); chats' conversations time out after 2 minutes.
 */
export async function serveFilesApp(
  client: AgentClient,
  authenticate: AgentHandlerOptions['authenticate'],
  options: Partial<AgentHandlerOptions> = {},
): Promise<TestHttpServer> {
  const shared = { client, authenticate, onError: () => undefined, ...options };
  const chat = createAgentHandler({
    agent: 'files',
    conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
    ...shared,
  });
  const inbox = createInboxHandler(shared);
  return await serveHandler((request) =>
    new URL(request.url).pathname.includes('/inbox') ? inbox(request) : chat(request),
  );
}

/** The chat turns' runs on the harness's task queue (the handler's default `chat-` prefix). */
export async function chatRuns(harness: HarnessClient) {
  const runs = [];
  const query = `WorkflowId STARTS_WITH 'chat-' AND WorkflowType = 'agentRun' AND TaskQueue = '${harness.taskQueue}'`;
  for await (const run of harness.client.list(query)) runs.push(run);
  return runs;
}

/** The `error.code` of an error answer's JSON body; undefined when the body is not one. */
export function errorCodeOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}
