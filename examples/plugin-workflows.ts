// The team's own workflows module in the plugin example. It does not mention `agentRun`: `DurableAgentPlugin`
// bundles it with this module. `planTrip` hands part of its job to an agent as a child workflow.
import { proxyActivities } from '@temporalio/workflow';
import { executeAgentRun } from '../src/workflow-api/index.js';
import type * as activities from './plugin-activities.js';

const { formatItinerary } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });

/** A workflow the team had before agents: it keeps running on the same worker. */
export async function sendItinerary(city: string, plan: string): Promise<string> {
  return await formatItinerary(city, plan);
}

/** Asks the example assistant about the weather (a child agent run), then formats the answer itself. */
export async function planTrip(city: string): Promise<string> {
  const answer = await executeAgentRun('assistant', `What is the weather in ${city}?`, { maxSteps: 4 });
  return await formatItinerary(city, answer.text);
}
