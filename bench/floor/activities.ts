// The floor's activities: no-op bodies standing in for durable-agent's `describeAgent`, `generate` and `executeTool`.
// The tool returns the same output as the bench's `lookup` tool, so the same bytes cross the activity boundary.
import { lookupOutput } from '../lookup-output.mjs';

/** What the floor's model stand-in answers: call the tool once more, or stop. */
export interface FloorReply {
  toolCall: boolean;
}

/** Stands in for `describeAgent` (a local activity at the start of every agent run). */
export async function describe(): Promise<{ maxSteps: number }> {
  return { maxSteps: 100 };
}

/** Stands in for `generate`: the reply a scripted model gives at `step` of `toolSteps`. */
export async function generate(input: { step: number; toolSteps: number }): Promise<FloorReply> {
  return { toolCall: input.step < input.toolSteps };
}

/** Stands in for `executeTool` running the `lookup` tool. */
export async function tool(input: { key: string; bytes: number }): Promise<{ key: string; data: string }> {
  return lookupOutput(input);
}
