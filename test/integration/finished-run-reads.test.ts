// A finished run reads the same every time: its events and state from the record in its memo (no worker) and from
// the queries of a worker that replays it. Runs whose first workflow task came with a query while their first local
// activity (describeAgent) ran are the ones where workflow time after the activity differs on replay.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { eventsQuery, stateQuery } from '../../src/protocol/run-messages.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

async function recorded(run: AgentRun): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

/**
 * Whether the run's local activity (describeAgent) reached the workflow in a later task than the one that recorded
 * its result: its marker is among the first task's commands, and the first task ended early (to answer the query)
 * with the next one started by its completion.
 */
async function resultDeliveredLater(run: AgentRun): Promise<boolean> {
  const events = (await run.handle.fetchHistory()).events ?? [];
  const second = events.findIndex((e, i) => i > 3 && e.workflowTaskScheduledEventAttributes);
  const marker = events.findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  const started = events[second + 1]?.workflowTaskStartedEventAttributes;
  return marker >= 0 && marker < second && started?.requestId === 'request-from-RespondWorkflowTaskCompleted';
}

describe('every read of a finished run gives the same events', () => {
  it('the record and a replaying worker agree, for runs queried during their first task', async ({ annotate }) => {
    const taskQueue = uniqueTaskQueue('finished-reads');
    const count = 12;
    const agents = Array.from(
      { length: count },
      (_, i) =>
        new Agent({ name: `echo${i}`, instructions: 'Echo.', model: new ScriptedLanguageModel([{ text: 'hi' }]) }),
    );
    const client = new AgentClient({ client: env.client, taskQueue });
    // Started before any worker polls: each run's first task waits, with the query sent meanwhile attached to it.
    const runs = await Promise.all(
      agents.map((agent) => client.start(agent.name, 'hi', { workflow: { workflowExecutionTimeout: '2 minutes' } })),
    );
    const early = runs.map((run) => run.handle.query(stateQuery));
    await withAgentWorker(
      env,
      agents,
      async () => {
        await Promise.all(early);
        await Promise.all(runs.map((run) => run.handle.result()));
      },
      { taskQueue },
    );
    const replayed = await withAgentWorker(
      env,
      agents,
      async () =>
        await Promise.all(
          runs.map(async (run) => ({
            events: await run.handle.query(eventsQuery, 0, 10_000),
            state: await run.handle.query(stateQuery),
          })),
        ),
      { taskQueue },
    );
    const forced = (await Promise.all(runs.map(resultDeliveredLater))).filter(Boolean).length;
    // Before RunClock, every such run failed below (its step-started event was the next task's start time in the
    // record, the activity's completion time on replay); a fast worker may deliver fewer of them.
    await annotate(`${forced}/${count} runs got their local activity's result in a later task than recorded it`);
    for (const [i, run] of runs.entries()) {
      expect(await recorded(run), run.id).toEqual(replayed[i]!.events);
      expect(await run.state(), run.id).toEqual(replayed[i]!.state);
    }
  });
});
