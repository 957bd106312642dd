import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { AgentDescription, CheckedToolCall, ToolActivityOptions } from '../src/protocol/index.js';

/** Options of the `generate` activity (one model call), from the agent's recorded `activity.generate`. */
export function generateActivityOptions(description: AgentDescription): ActivityOptions {
  const options = description.generateActivity ?? {};
  return {
    startToCloseTimeout: options.startToCloseTimeout ?? '5 minutes',
    heartbeatTimeout: options.heartbeatTimeout ?? '30 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 8,
      ...options.retry,
    },
    // A cancelled run waits for the model call to abort its HTTP request before it ends.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

/**
 * Options of one tool call's `executeTool` activity. Since v0.2.0 the `generate` activity reports them with each
 * call (the agent's tool defaults merged under the tool's own); calls recorded by v0.1.0 take them from the tool
 * descriptors that version recorded in the description.
 */
export function toolActivityOptions(
  description: AgentDescription,
  call: Extract<CheckedToolCall, { status: 'valid' }>,
): ActivityOptions {
  const { own, defaults } = call.activity
    ? { own: call.activity, defaults: {} }
    : {
        own: description.tools?.find((tool) => tool.name === call.toolName)?.activity ?? {},
        defaults: description.toolActivity ?? {},
      };
  return withToolDefaults(own, defaults);
}

function withToolDefaults(own: ToolActivityOptions, defaults: ToolActivityOptions): ActivityOptions {
  const scheduleToClose = own.scheduleToCloseTimeout ?? defaults.scheduleToCloseTimeout;
  const taskQueue = own.taskQueue ?? defaults.taskQueue;
  return {
    startToCloseTimeout: own.startToCloseTimeout ?? defaults.startToCloseTimeout ?? '10 minutes',
    heartbeatTimeout: own.heartbeatTimeout ?? defaults.heartbeatTimeout ?? '30 seconds',
    ...(scheduleToClose ? { scheduleToCloseTimeout: scheduleToClose } : {}),
    ...(taskQueue ? { taskQueue } : {}),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 10,
      ...defaults.retry,
      ...own.retry,
    },
    // The tool sees its abort signal and finishes its cleanup before a cancelled run ends.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

/**
 * Options of a call's `executeTool` local activity (the tool asked for `activity: { local: true }`): its timeouts
 * and retry policy as for an activity; a local activity has no heartbeat timeout and no task queue of its own.
 */
export function localToolActivityOptions(call: Extract<CheckedToolCall, { status: 'valid' }>): LocalActivityOptions {
  const { retry, startToCloseTimeout, scheduleToCloseTimeout } = withToolDefaults(call.activity ?? {}, {});
  return {
    ...(startToCloseTimeout !== undefined ? { startToCloseTimeout } : {}),
    ...(scheduleToCloseTimeout !== undefined ? { scheduleToCloseTimeout } : {}),
    ...(retry ? { retry } : {}),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}
