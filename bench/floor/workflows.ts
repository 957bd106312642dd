// The floor: a bare Temporal workflow that schedules the same activities as a durable-agent run of the bench
// workload (a local activity first, then per step one model activity and one tool activity) with no-op bodies, and
// nothing else. What durable-agent spends beyond it is the runtime's own cost. `approval` makes it wait for an update
// before its first tool call, as an agent run waits for a person's decision.
import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type * as activities from './activities.js';

/** Input of {@link floorRun}. */
export interface FloorInput {
  toolSteps: number;
  bytes: number;
  /** The tool runs as a local activity. */
  localTool?: boolean;
  /** Wait for {@link approveUpdate} before the first tool call. */
  approval?: boolean;
}

/** Lets a waiting floor run go on (the floor's approval). */
export const approveUpdate = defineUpdate<void>('floor.approve');

const { describe } = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const { generate, tool } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** `toolSteps` steps that each call the tool once, then a last model step; returns like an agent run. */
export async function floorRun(input: FloorInput): Promise<{ text: string; steps: number }> {
  let approved = input.approval !== true;
  setHandler(approveUpdate, () => {
    approved = true;
  });
  await describe();
  for (let step = 0; ; step++) {
    const reply = await generate({ step, toolSteps: input.toolSteps });
    if (!reply.toolCall) return { text: 'done', steps: step + 1 };
    if (!approved) await condition(() => approved);
    const args = { key: `k${step}`, bytes: input.bytes };
    await (input.localTool ? local.tool(args) : tool(args));
  }
}

/** A bare workflow that waits for updates and does nothing else: the floor of an idle conversation. */
export async function floorIdle(): Promise<void> {
  let messages = 0;
  setHandler(approveUpdate, () => {
    messages++;
  });
  await condition(() => messages < 0);
}
