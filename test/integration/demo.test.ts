// `npm run demo` end to end, as a child process against the suite's Temporal server: the offline model calls
// get_weather and send_email, the demo SIGKILLs its worker while the run waits for approval, a new worker picks the
// run up, demo-user approves, and the run finishes. Also the real-model path, through a fake OpenAI server, and
// the embedded dev server with its Web UI, whose link to the run answers while a person decides.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { testServer, uniqueTaskQueue } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO = fileURLToPath(new URL('../../examples/demo.ts', import.meta.url));
const DEMO_TIMEOUT_MS = 120_000;

interface DemoResult {
  code: number | null;
  output: string;
}

/** Runs the demo with a clean model environment (offline unless `env` says otherwise) on a fresh task queue. */
async function runDemo(taskQueue: string, env: Record<string, string> = {}): Promise<DemoResult> {
  const { address, namespace } = testServer();
  const base = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGENT_MODEL', 'FORCE_COLOR']) delete base[key];
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO], {
    cwd: ROOT,
    env: {
      ...base,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGINT'), DEMO_TIMEOUT_MS - 10_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

/** Asserts `patterns` occur in `text` in this order; returns the matches. */
function inOrder(text: string, patterns: RegExp[]): RegExpExecArray[] {
  let from = 0;
  return patterns.map((pattern) => {
    const match = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(text.slice(from));
    expect(match, `${pattern} after offset ${from} in:\n${text}`).not.toBeNull();
    from += match!.index + match![0].length;
    return match!;
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let fake: OpenAIFakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Every variable of this process except Temporal's connection settings and the model's. */
function withoutTemporalOrModel(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(TEMPORAL_|OPENAI_|AGENT_MODEL$|FORCE_COLOR$)/.test(name) && name !== 'TEMPORAL_CLI_PATH') continue;
    env[name] = value;
  }
  return env;
}

describe('npm run demo', () => {
  it(
    'starts an embedded dev server with its Web UI and prints a link to the run that works, offline',
    async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', DEMO, '--interactive'], {
        cwd: ROOT,
        // No address anywhere (no TEMPORAL_ADDRESS, no temporal.toml under HOME): the demo starts its own server.
        env: {
          ...withoutTemporalOrModel(),
          HOME: '/nonexistent',
          NO_COLOR: '1',
          TEMPORAL_TASK_QUEUE: uniqueTaskQueue('ui'),
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      const seen = (pattern: RegExp) =>
        new Promise<RegExpExecArray>((resolve, reject) => {
          const check = () => {
            const match = pattern.exec(output);
            if (match) {
              child.stdout.off('data', check);
              resolve(match);
            }
          };
          child.stdout.on('data', check);
          child.once('exit', () => reject(new Error(`demo exited before ${pattern}:\n${output}`)));
          check();
        });
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const [, uiUrl] = await seen(/Temporal Web UI: (http:\/\/127\.0\.0\.1:\d+)\n/);
        const [, link, namespace, workflowId] = await seen(
          /Follow it in the Temporal Web UI: (http:\/\/127\.0\.0\.1:\d+\/namespaces\/([^/]+)\/workflows\/(\S+))\n/,
        );
        expect(link!.startsWith(uiUrl!)).toBe(true);
        // While the demo waits for the person's answer, the UI serves the run's page and, through its own API,
        // the run itself from the embedded server: nothing is fetched from the internet.
        await seen(/Approve send_email .*\? \[y\/n\] /);
        const page = await fetch(link!);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/text\/html/);
        expect(await page.text()).toMatch(/<html/i);
        const api = await fetch(`${uiUrl}/api/v1/namespaces/${namespace}/workflows/${workflowId}`);
        expect(api.status).toBe(200);
        const described = (await api.json()) as {
          workflowExecutionInfo?: { type?: { name?: string }; status?: string };
        };
        expect(described.workflowExecutionInfo?.type?.name).toBe('agentRun');
        expect(described.workflowExecutionInfo?.status).toBe('WORKFLOW_EXECUTION_STATUS_RUNNING');

        child.stdin.write('y\n');
        expect(await exited, output).toBe(0);
        inOrder(output, [
          /No Temporal address is configured .*: starting an embedded dev server/,
          /approved send_email by demo-user/,
          /finished \(completed, stop\)/,
          /Stopped the embedded Temporal dev server\./,
        ]);
      } finally {
        if (child.exitCode === null) child.kill('SIGINT');
        await exited;
      }
    },
    DEMO_TIMEOUT_MS,
  );

  it(
    'shows a run surviving a SIGKILLed worker while it waits for approval, offline, and cleans up',
    async () => {
      const taskQueue = uniqueTaskQueue('demo');
      const { code, output } = await runDemo(taskQueue);
      expect(code, output).toBe(0);
      const matches = inOrder(output, [
        /Model: offline\/demo — the offline stand-in/,
        /Worker 1 \(pid (\d+)\) is polling task queue '(.+)'/,
        /call get_weather \{"city":"Paris"\}/,
        /✓ get_weather → \{"city":"Paris","tempC":14,"conditions":"light rain"\}/,
        /call send_email \{"to":"team@example.com","subject":"Paris weather update","body":"Paris weather update"\}/,
        / APPROVAL NEEDED {2}send_email/,
        /Killed worker 1 \(pid (\d+)\) with SIGKILL while the run waits for approval of send_email\./,
        /Temporal still has the run: RUNNING/,
        /Worker 2 \(pid (\d+)\) is polling task queue/,
        /the run is waiting, 1 step done, 1 pending approval:\n {2}send_email /,
        /approved send_email by demo-user: Checked the recipient and the text: fine to send\./,
        /✓ send_email → \{"sent":true/,
        /finished \(completed, stop\)/,
        /── Final answer\nOffline demo model \(rule-based, no API key\)\. Here is what the tools returned:\n- get_weather: .*light rain.*\n- send_email: \{"sent":true/,
        /Steps: {6}3 \(completed, stop\)/,
        /Tool calls: 2 — get_weather, send_email/,
        /Approvals: {2}approved send_email by demo-user/,
        /Workers: {4}2 \(the first killed with SIGKILL mid-run/,
      ]);
      const [firstWorker, killed, secondWorker] = [matches[1]!, matches[6]!, matches[8]!];
      expect(firstWorker[2]).toBe(taskQueue);
      expect(killed[1]).toBe(firstWorker[1]);
      // Both workers are gone once the demo has exited: the killed one, and the one it stopped at the end.
      expect(isAlive(Number(firstWorker[1]))).toBe(false);
      expect(isAlive(Number(secondWorker[1]))).toBe(false);
      expect(output).not.toContain('Demo failed');
    },
    DEMO_TIMEOUT_MS,
  );

  it(
    'runs the same flow with a real model (an OpenAI-compatible server) when OPENAI_API_KEY is set',
    async () => {
      fake = await startOpenAIFakeServer({
        apiKey: 'demo-test-key',
        chat: [
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
          {
            toolCalls: [
              {
                name: 'send_email',
                arguments: { to: 'team@example.com', subject: 'Paris weather update', body: 'Light rain, 14 °C.' },
              },
            ],
          },
          { text: 'It is 14 °C with light rain in Paris; I emailed the team.' },
        ],
      });
      const { code, output } = await runDemo(uniqueTaskQueue('demo-openai'), {
        OPENAI_API_KEY: 'demo-test-key',
        OPENAI_BASE_URL: fake.baseURL,
      });
      expect(code, output).toBe(0);
      inOrder(output, [
        /Model: openai\/gpt-4o-mini\n/,
        / APPROVAL NEEDED {2}send_email \{"to":"team@example.com"/,
        /Killed worker 1 \(pid \d+\) with SIGKILL/,
        /Worker 2 \(pid \d+\) is polling/,
        /approved send_email by demo-user/,
        /── Final answer\nIt is 14 °C with light rain in Paris; I emailed the team\./,
        /Workers: {4}2 /,
      ]);
      expect(fake.chatRequests).toHaveLength(3);
      expect(fake.unscriptedRequests).toBe(0);
    },
    DEMO_TIMEOUT_MS,
  );

  it(
    'says so and exits 0 when a real model does not call the tools',
    async () => {
      fake = await startOpenAIFakeServer({ chat: [{ text: 'I cannot check the weather, sorry.' }] });
      const { code, output } = await runDemo(uniqueTaskQueue('demo-no-tools'), {
        OPENAI_API_KEY: 'demo-test-key',
        OPENAI_BASE_URL: fake.baseURL,
      });
      expect(code, output).toBe(0);
      inOrder(output, [
        /model says: I cannot check the weather, sorry\./,
        /The model did not call get_weather, so the approval and the worker crash could not be shown\./,
        /── Final answer\nI cannot check the weather, sorry\./,
        /Workers: {4}1\n/,
      ]);
      expect(output).not.toContain('Killed worker');
    },
    DEMO_TIMEOUT_MS,
  );
});
