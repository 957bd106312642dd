import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { startDevServer } from '../../src/worker/dev-server.js';

const tokens = Number(process.env.TOKENS ?? 200);
const delay = Number(process.env.DELAY ?? 20);
function writer(name: string, streaming: boolean): Agent {
  const steps = [{ text: 'x'.repeat(tokens), stream: { chunkChars: 1, chunkDelayMs: delay } }];
  const model = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' as const });
  return new Agent({ name, instructions: '', model, maxSteps: 2, streaming });
}
Runtime.install({ logger: new DefaultLogger('WARN') });
const server = await startDevServer();
const connection = await NativeConnection.connect({ address: server.address });
const worker = await createAgentWorker({ agents: [writer('s', true), writer('p', false)], connection, namespace: server.namespace, taskQueue: 'q' });
const client = new AgentClient({ client: new Client({ connection: await Connection.connect({ address: server.address }) }), taskQueue: 'q' });
await worker.runUntil(async () => {
  for (const a of (process.env.ORDER ?? 'p,s,p,s,p,s').split(',')) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    const run = await client.start(a, 'write');
    await run.result();
    const u = process.cpuUsage(cpu);
    const h = await run.handle.fetchHistory();
    console.log(a, 'cpu ms', (u.user + u.system) / 1000, 'wall', Math.round(performance.now() - t), 'events', h.events!.length);
  }
});
await server.stop();
process.exit(0);
