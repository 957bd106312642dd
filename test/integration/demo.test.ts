// `npm run demo` end to end, as a child process against the suite's Temporal server: the offline model calls
// get_weather and send_email, the demo SIGKILLs its worker while the run waits for approval, a new worker picks the
// run up, demo-user approves, and the run finishes; then the routed concierge searches its pool and calls the tool
// it found through callTool. Also the embedded dev server with its Web UI, whose link to the run answers while a
// person decides. (The real-model path: demo-model.test.ts.)
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEMO, DEMO_TIMEOUT_MS, inOrder, ROOT, runDemo } from '../support/demo.js';
import { uniqueTaskQueue } from '../support/temporal.js';

/** Minutes between two `YYYY-MM-DD HH:MM` wall-clock times of the same zone. */
function minutesApart(a: string, b: string): number {
  return Math.abs(Date.parse(`${a.replace(' ', 'T')}Z`) - Date.parse(`${b.replace(' ', 'T')}Z`)) / 60_000;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
        // The inbox page the demo printed lists the same wait, found by the run's search attributes.
        const [, inboxLink] = await seen(/Inbox page .*: (http:\/\/127\.0\.0\.1:\d+\/login\?token=[\w-]+)\n/);
        const login = await fetch(inboxLink!, { redirect: 'manual' });
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        const inbox = (await (await fetch(new URL('/api/inbox', inboxLink).href, { headers: { cookie } })).json()) as {
          items: Array<{ kind: string; workflowId: string; toolName: string }>;
        };
        expect(inbox.items).toContainEqual(
          expect.objectContaining({ kind: 'approval', workflowId, toolName: 'send_email' }),
        );

        child.stdin.write('y\n');
        // The conversation's second turn asks again.
        await seen(/Turn 2: [\s\S]*Approve send_email .*\? \[y\/n\] /);
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
        // The second crash: SIGKILL while the model writes the answer; the retried call goes on where the screen is.
        /Killed worker 2 \(pid \d+\) with SIGKILL.* while the model writes the answer\./,
        /Worker 3 \(pid \d+\) is polling task queue/,
        /finished \(completed, stop\)/,
        /── Final answer\nOffline demo model \(rule-based, no API key\)\. Here is what the tools returned:\n- get_weather: .*light rain.*\n- send_email: \{"sent":true/,
        /The answer's model call ran again \(attempt [2-9]\) after the crash\. History holds its text once/,
        // The routed run: the model sees searchTools and callTool, searches, and calls what it found.
        /── Tool routing\nTool routing: the 'concierge' agent has 10 tools, but its model sees only searchTools and callTool\./,
        /Tool search: offline\/hashed-bow — an offline hashed bag of words \(it matches words, not meanings\)\./,
        /Started run agent-concierge-\S+ of agent 'concierge':\n {2}"What time is it in Tokyo\?"/,
        /run started · agent concierge/,
        /call searchTools \{"query":"What time is it in Tokyo\?"\}/,
        /running searchTools/,
        /✓ searchTools → \{"query":"What time is it in Tokyo\?","selections":\[\{"name":"get_local_time","score":1\}\]/,
        /call callTool \{"name":"get_local_time","args":\{"city":"Tokyo"\}\}/,
        /running get_local_time/,
        /✓ get_local_time → \{"city":"Tokyo","timeZone":"Asia\/Tokyo","localTime":"(\d{4}-\d\d-\d\d \d\d:\d\d)"\}/,
        /model says: Offline demo model .*\n {4}- searchTools: found get_local_time\n {4}- get_local_time: /,
        /finished \(completed, stop\)/,
        /The search ran as activities: embedBatch ×1 \(the tools' texts into the worker's cache\) and rankTools ×1/,
        /The run's history records only counts \((\d+) bytes\) and the ranking \((\d+) bytes\), never the vectors\./,
        /Steps: {6}3 \(completed, stop\)/,
        /Tool calls: 2 — get_weather, send_email/,
        /Approvals: {2}approved send_email by demo-user/,
        /Workers: {4}3 for the run \(killed with SIGKILL while it waited for approval, then while the model wrote the answer/,
        /Routed run: concierge — searchTools, callTool → get_local_time \(activities: generate ×3, embedBatch ×1, rankTools ×1, executeTool ×1\)/,
      ]);
      // The conversation: three turns, the worker SIGKILLed between turns 1 and 2, an approval in turn 2, and
      // follow-ups answered from the earlier turns (the offline model reads them in its prompt).
      const chat = output.slice(output.indexOf('── Conversation'));
      const chatMatches = inOrder(chat, [
        /Conversation (demo-chat-\S+) with agent 'assistant':/,
        /Turn 1: "What's the weather in Paris\?"/,
        /call get_weather \{"city":"Paris"\}/,
        /✓ get_weather → \{"city":"Paris","tempC":14,"conditions":"light rain"\}/,
        /turn 1 answered \(completed, stop\)/,
        /Killed worker 3 \(pid (\d+)\) with SIGKILL between turns 1 and 2\./,
        /Temporal still has the conversation: RUNNING, \d+ events in its history/,
        /Worker 4 \(pid (\d+)\) is polling task queue/,
        /Turn 2: "Email that forecast to ana@example.com"/,
        /call send_email \{"to":"ana@example.com","subject":"Re: What's the weather in Paris\?","body":"get_weather: \{\\"city\\":\\"Paris\\",\\"tempC\\":14,\\"conditions\\":\\"light rain\\"\}"\}/,
        / APPROVAL NEEDED {2}send_email/,
        /approved send_email by demo-user/,
        /✓ send_email → \{"sent":true,"to":"ana@example.com"/,
        /turn 2 answered \(completed, stop\)/,
        /Turn 3: "Which city was that forecast for\?"/,
        /model says: Offline demo model \(rule-based, no API key\)\. From earlier in this conversation: the city was Paris \(get_weather/,
        /turn 3 answered \(completed, stop\)/,
        /Chat: {7}3 turns — 1: get_weather; 2: send_email \(approved\); 3: answer \(worker 3 killed between turns 1 and 2\)/,
      ]);
      // Turn 3 called no tool: it was answered from the transcript.
      expect(chat.slice(chat.indexOf('Turn 3:'), chat.indexOf('turn 3 answered'))).not.toContain('call ');
      const [killedBetween, fourthWorker] = [chatMatches[5]!, chatMatches[7]!];
      expect(isAlive(Number(killedBetween[1]))).toBe(false);
      expect(isAlive(Number(fourthWorker[1]))).toBe(false);
      const [firstWorker, killed, secondWorker] = [matches[1]!, matches[6]!, matches[8]!];
      // The world clock read the real clock: Tokyo's time now, give or take the demo's own duration.
      const tokyoNow = new Date().toLocaleString('sv-SE', {
        timeZone: 'Asia/Tokyo',
        dateStyle: 'short',
        timeStyle: 'short',
      });
      expect(minutesApart(matches[26]![1]!, tokyoNow)).toBeLessThanOrEqual(3);
      // History holds counts and a ranking: ten 256-number vectors would not fit in either.
      const [countBytes, rankingBytes] = [Number(matches[30]![1]), Number(matches[30]![2])];
      expect(countBytes).toBeGreaterThan(0);
      expect(countBytes).toBeLessThan(200);
      expect(rankingBytes).toBeGreaterThan(0);
      expect(rankingBytes).toBeLessThan(4_000);
      expect(firstWorker[2]).toBe(taskQueue);
      expect(killed[1]).toBe(firstWorker[1]);
      // Both workers are gone once the demo has exited: the killed one, and the one it stopped at the end.
      expect(isAlive(Number(firstWorker[1]))).toBe(false);
      expect(isAlive(Number(secondWorker[1]))).toBe(false);
      expect(output).not.toContain('Demo failed');
      // Each answer is shown once, as the model writes it (live) or as its step recorded it: never twice.
      expect(output.match(/model says: /g)).toHaveLength(2 + 3);
      expect(output).not.toContain('↺');
      expect(output).toContain('Events as the run records them, and the answer as the model writes it:');
    },
    DEMO_TIMEOUT_MS,
  );
});
