// The worker of `bench/recovery.ts`, in its own process so the bench can SIGKILL it. Its one tool works for WORK_MS
// with a heartbeat timeout of HEARTBEAT_TIMEOUT and logs each attempt's start with a timestamp.
import { appendFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { ProviderRegistry } from '../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../src/models/scripted-model.js';
import { createTool } from '../src/tool/tool.js';
import { createAgentWorker } from '../src/worker/create-agent-worker.js';

const { TEMPORAL_ADDRESS, TASK_QUEUE, LOG_FILE, WORK_MS, HEARTBEAT_TIMEOUT, WORKFLOW_BUNDLE } = process.env;
if (!TEMPORAL_ADDRESS || !TASK_QUEUE || !LOG_FILE) throw new Error('TEMPORAL_ADDRESS, TASK_QUEUE, LOG_FILE');

const work = createTool({
  name: 'work',
  description: 'Works for a while.',
  parameters: z.object({}),
  activity: { heartbeatTimeout: HEARTBEAT_TIMEOUT ?? '2s', startToCloseTimeout: '5 minutes' },
  execute: async (_args, options) => {
    appendFileSync(
      LOG_FILE,
      `${Date.now()} start ${options?.operationId} attempt=${options?.attempt} pid=${process.pid}\n`,
    );
    await delay(Number(WORK_MS ?? 4_000), undefined, { signal: options?.abortSignal });
    return 'worked';
  },
});

Runtime.install({ logger: new DefaultLogger('ERROR') });
const worker = await createAgentWorker({
  agents: [
    new Agent({
      name: 'recover',
      instructions: '',
      model: new ScriptedLanguageModel({
        stepSelection: 'assistant-turns',
        steps: [{ toolCalls: [{ toolName: 'work', input: {} }] }, { text: 'recovered' }],
      }),
      tools: [work],
    }),
  ],
  providers: new ProviderRegistry({ env: {} }),
  connection: await NativeConnection.connect({ address: TEMPORAL_ADDRESS }),
  taskQueue: TASK_QUEUE,
  payloadCodec: false,
  telemetry: false,
  ...(WORKFLOW_BUNDLE ? { workflowBundle: { codePath: WORKFLOW_BUNDLE } } : {}),
  // As worker.ts: a dead worker's sticky queue is given up after 3 s.
  worker: { stickyQueueScheduleToStartTimeout: '3s' },
});
process.send?.('ready');
await worker.run();
