// Starts a run of the support agent and follows it: approvals are asked for at the terminal. Run it beside a
// worker (`npm run dev` in another terminal): `npm run client -- "Refund order A-1001, it arrived broken"`.
import { createInterface } from 'node:readline/promises';
import { AgentClient, projectTaskQueue, type AgentRun } from 'durable-agent/client';

/** How a pending tool call gets its decision. */
export type Decide = (toolName: string, args: unknown) => Promise<boolean>;

/** Asks at the terminal; without one (CI, a pipe), approves and says so. */
export const askAtTerminal: Decide = async (toolName, args) => {
  if (!process.stdin.isTTY) {
    console.log(`  (no terminal: approving ${toolName} automatically)`);
    return true;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(`  approve ${toolName}(${JSON.stringify(args)})? [y/N] `);
    return answer.trim().toLowerCase().startsWith('y');
  } finally {
    prompt.close();
  }
};

/** Follows a run to its end, deciding each approval with `decide`; resolves with the answer. */
export async function follow(run: AgentRun, decide: Decide = askAtTerminal): Promise<string> {
  for await (const event of run.events()) {
    if (event.type === 'tool-call') console.log(`  tool call: ${event.toolName}`);
    if (event.type === 'approval-requested') {
      console.log(`  waiting for approval: ${event.toolName}`);
      if (await decide(event.toolName, event.args)) await run.approve(event.toolCallId, { approver: 'you' });
      else await run.deny(event.toolCallId, { reason: 'Denied at the terminal.', approver: 'you' });
    }
  }
  return (await run.result()).text;
}

// Run as a script (not imported by src/start.ts or the tests).
if (import.meta.url === `file://${process.argv[1]}`) {
  const input = process.argv.slice(2).join(' ') || 'Refund order A-1001, it arrived broken';
  // This project's task queue (the name in package.json, or TEMPORAL_TASK_QUEUE): the one its worker polls.
  const client = await AgentClient.connect({ taskQueue: projectTaskQueue() });
  try {
    const run = await client.start('support', input);
    console.log(`run ${run.id}`);
    console.log(await follow(run));
  } finally {
    await client.temporal.connection.close();
  }
}
