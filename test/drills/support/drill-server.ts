// A Temporal dev server for the drills, with the history shard's task loading raised from its default of 20 tasks
// per second (`history.transferProcessorMaxPollRPS`): at the default, every drill would measure that limit rather
// than durable-agent. The other settings match `src/worker/dev-server.ts`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { resolveTemporalBinary } from '../../../src/worker/dev-server.js';

/** Dynamic config of the drill servers. */
export const DRILL_DYNAMIC_CONFIG = [
  'history.transferProcessorMaxPollRPS=1000',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
  'frontend.enableCancelWorkerPollsOnShutdown=true',
  'frontend.enableServerVersionCheck=false',
];

/** A running drill server. */
export interface DrillServer {
  address: string;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` in memory on a free port and resolves once its namespace answers. */
export async function startDrillServer(): Promise<DrillServer> {
  const port = await freePort();
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'error',
  ];
  for (const value of DRILL_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
  const child = spawn(resolveTemporalBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`drill server exited (${child.exitCode}): ${stderr}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        break;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`drill server did not start: ${String(error)}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    address,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}
