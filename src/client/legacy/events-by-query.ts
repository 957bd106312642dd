// How a client follows a run of v0.1.0–v0.3.0 (no stream: its memo says no protocol, see src/client/run-protocol.ts):
// by polling its events query, which a worker answers. Retired with protocol 2 (docs/upgrading.md).
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { TERMINAL_EVENT_TYPES, type RunEvent } from '../../protocol/index.js';

/** What the poll needs of the run's client. */
export interface LegacyEventSource {
  /** The execution to ask first. */
  first: WorkflowHandle;
  /** The events after `after` that `execution` holds (its events query, through a worker). */
  query(execution: WorkflowHandle, after: number, signal?: AbortSignal): Promise<RunEvent[]>;
  /** The execution requests go to now (the next one after a continue-as-new). */
  current(): Promise<WorkflowHandle>;
  /** The events the current execution recorded as it ended, if it did. */
  recorded(): Promise<RunEvent[] | undefined>;
}

/**
 * The run's events with `seq > after` by polling, every `intervalMs` while none come; ends after the terminal event,
 * or quietly when `signal` aborts.
 */
export async function* legacyEventsByQuery(
  source: LegacyEventSource,
  options: { after: number; intervalMs: number; signal?: AbortSignal | undefined },
): AsyncGenerator<RunEvent> {
  let { after } = options;
  const { signal } = options;
  let execution = source.first;
  for (let idle = 0; ; ) {
    if (signal?.aborted) return;
    let batch: RunEvent[];
    try {
      batch = await source.query(execution, after, signal);
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    let continued = false;
    for (const event of batch) {
      after = event.seq;
      yield event;
      if (TERMINAL_EVENT_TYPES.has(event.type)) return;
      continued ||= event.type === 'continued-as-new';
    }
    // The log goes on in the next execution (which carries it over): a pinned run asks that one from now on.
    if (continued) execution = await source.current();
    if (batch.length > 0) {
      idle = 0;
      continue;
    }
    // A run terminated or timed out by Temporal records no terminal event: stop once it is closed and drained.
    const status = ++idle % 10 === 0 ? (await execution.describe()).status.name : 'RUNNING';
    if (status === 'CONTINUED_AS_NEW') {
      execution = await source.current();
    } else if (status !== 'RUNNING') {
      const recorded = await source.recorded();
      const rest = recorded ? recorded.filter((event) => event.seq > after) : await source.query(execution, after);
      for (const event of rest) yield event;
      return;
    }
    // The timer removes its abort listener when it fires, so a long watch does not pile listeners up.
    const aborted = await delay(options.intervalMs, false, signal ? { signal } : {}).catch(() => true);
    if (aborted) return;
  }
}
