// `npm run bench:mcp`: what an MCP tool costs in a durable run, next to a local tool doing the same work, on one dev
// server and one worker. (1) Per tool step in a run: local echo vs the fixture MCP server's echo over stdio and over
// Streamable HTTP, runs interleaved, pool warm. (2) Per call, outside Temporal: the first call of a fresh pool (spawn
// or connect, handshake, call) against later calls on the warm pool. Medians. Writes bench/results/mcp.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { format } from 'prettier';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { AgentClient } from '../src/client/agent-client.js';
import { MCPConfiguration } from '../src/mcp/configuration.js';
import { McpConnectionPool } from '../src/mcp/connection-pool.js';
import { ScriptedLanguageModel } from '../src/models/scripted-model.js';
import { createTool } from '../src/tool/tool.js';
import { createAgentWorker } from '../src/worker/create-agent-worker.js';
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from '../src/worker/dev-server.js';
import { startHttpFixture, stdioFixture, stopAll } from '../test/fixtures/mcp/servers.js';
import { median, round } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const TOOL_STEPS = 10;
const REPS = QUICK ? 3 : 9;
const COLD_REPS = QUICK ? 3 : 7;
const log = (line: string) => process.stderr.write(`[bench:mcp] ${line}\n`);

function agent(name: string, toolName: string, mcp?: MCPConfiguration) {
  const steps = [
    ...Array.from({ length: TOOL_STEPS }, (_, i) => ({
      toolCalls: [{ toolName, input: { text: `step ${i}` }, toolCallId: `c${i}` }],
    })),
    { text: 'done' },
  ];
  const model = new ScriptedLanguageModel({ stepSelection: 'assistant-turns', steps });
  const echo = createTool({
    name: 'echo',
    description: 'Echoes its text.',
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => text,
  });
  return new Agent({ name, instructions: '', model, maxSteps: TOOL_STEPS + 2, ...(mcp ? { mcp } : { tools: [echo] }) });
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  log('Starting a Temporal dev server and the MCP fixture over HTTP...');
  const server = await startDevServer();
  const http = await startHttpFixture('streamable-http');
  try {
    const stdio = new MCPConfiguration({ servers: { local: stdioFixture() } });
    const web = new MCPConfiguration({ servers: { remote: { type: 'streamable-http', url: `${http.origin}/mcp` } } });
    const agents = [
      agent('local', 'echo'),
      agent('mcp-stdio', 'local_echo', stdio),
      agent('mcp-http', 'remote_echo', web),
    ];
    const connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = 'bench-mcp';
    const worker = await createAgentWorker({ agents, connection, namespace: server.namespace, taskQueue });
    const client = new AgentClient({
      client: new Client({ connection: await Connection.connect({ address: server.address }) }),
      taskQueue,
    });
    const perStep: Record<string, number[]> = { local: [], 'mcp-stdio': [], 'mcp-http': [] };
    await worker.runUntil(async () => {
      for (let rep = -1; rep < REPS; rep++) {
        for (const name of Object.keys(perStep)) {
          const started = performance.now();
          const result = await client.generateText(name, 'go');
          if (result.text !== 'done') throw new Error(`${name}: ${result.text}`);
          // The first round warms the pool and the worker: not measured.
          if (rep >= 0) perStep[name]!.push((performance.now() - started) / (TOOL_STEPS + 1));
        }
      }
    });
    log('Cold and warm calls outside Temporal...');
    const calls: Record<string, { cold: number[]; warm: number[] }> = {};
    const targets: Array<[string, MCPConfiguration, string]> = [
      ['stdio', stdio as MCPConfiguration, 'local'],
      ['http', web as MCPConfiguration, 'remote'],
    ];
    for (const [label, config, serverName] of targets) {
      const cold: number[] = [];
      const warm: number[] = [];
      for (let rep = 0; rep < COLD_REPS; rep++) {
        const pool = new McpConnectionPool();
        let started = performance.now();
        await config.callServerTool(serverName, 'echo', { text: 'cold' }, { pool });
        cold.push(performance.now() - started);
        for (let i = 0; i < 5; i++) {
          started = performance.now();
          await config.callServerTool(serverName, 'echo', { text: 'warm' }, { pool });
          warm.push(performance.now() - started);
        }
        await pool.close();
      }
      calls[label] = { cold, warm };
    }
    await stdio.disconnect();
    await web.disconnect();

    const local = median(perStep.local!);
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg().map((l) => round(l)) },
      server: { dynamicConfig: DEV_SERVER_DYNAMIC_CONFIG },
      toolSteps: TOOL_STEPS,
      reps: REPS,
      perStepMs: Object.fromEntries(Object.entries(perStep).map(([k, v]) => [k, round(median(v))])),
      mcpOverheadPerStepMs: {
        stdio: round(median(perStep['mcp-stdio']!) - local),
        http: round(median(perStep['mcp-http']!) - local),
      },
      perCallMs: Object.fromEntries(
        Object.entries(calls).map(([k, v]) => [k, { cold: round(median(v.cold)), warm: round(median(v.warm)) }]),
      ),
    };
    const md = [
      `# MCP tool cost (${report.date})`,
      '',
      `Machine: ${report.machine.cpus} × ${report.machine.model}, load ${report.machine.loadavg.join(' / ')}.`,
      `Dev server dynamic config: ${DEV_SERVER_DYNAMIC_CONFIG.join(', ')}.`,
      '',
      `Per tool step in a durable run (${TOOL_STEPS} tool steps + 1, ${REPS} runs each, interleaved, pool warm; medians):`,
      '',
      '| tool | ms/step | over the local tool |',
      '| --- | --- | --- |',
      `| local \`echo\` | ${report.perStepMs.local} | — |`,
      `| MCP \`echo\` over stdio | ${report.perStepMs['mcp-stdio']} | +${report.mcpOverheadPerStepMs.stdio} ms |`,
      `| MCP \`echo\` over Streamable HTTP | ${report.perStepMs['mcp-http']} | +${report.mcpOverheadPerStepMs.http} ms |`,
      '',
      `One MCP call outside Temporal (${COLD_REPS} fresh pools; medians):`,
      '',
      '| transport | cold (first call of a pool: spawn/connect + handshake + call) | warm |',
      '| --- | --- | --- |',
      ...Object.entries(report.perCallMs).map(([k, v]) => `| ${k} | ${v.cold} ms | ${v.warm} ms |`),
      '',
    ].join('\n');
    const dir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    // Written as Prettier formats JSON, so the committed result passes `npm run lint`.
    writeFileSync(`${dir}mcp.json`, await format(JSON.stringify(report), { parser: 'json' }));
    writeFileSync(`${dir}mcp.md`, md);
    process.stdout.write(`${md}\n`);
  } finally {
    await stopAll();
    await server.stop();
  }
}

await main();
