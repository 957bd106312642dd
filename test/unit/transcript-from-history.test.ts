// The transcript of a finished run rebuilt from its history, on the histories recorded by every release: a
// completed run's rebuilt transcript has exactly the message count its result records (the end-to-end comparison
// with the transcript query is test/integration/finished-run-history.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { transcriptFromEvents } from '../../src/history/transcript-from-history.js';
import type { AgentRunOutput } from '../../src/protocol/index.js';
import { HISTORIES_DIR } from '../support/release-fixtures.js';

const decode = async (payloads: Parameters<typeof defaultPayloadConverter.fromPayload>[0][] | null | undefined) =>
  payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads[0]) : undefined;

const versions = readdirSync(HISTORIES_DIR).filter((name) => /^v\d/.test(name));
// Agent runs only: the conversation workflow's fixtures hold turns, whose transcripts are their child runs'.
const fixtures = versions
  .flatMap((version) =>
    readdirSync(`${HISTORIES_DIR}${version}`)
      .filter((file) => file.endsWith('.json'))
      .map((file) => `${version}/${file}`),
  )
  .filter((fixture) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${HISTORIES_DIR}${fixture}`, 'utf8')));
    return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name === 'agentRun';
  });

describe('transcriptFromEvents', () => {
  it.each(fixtures)('%s', async (fixture) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${HISTORIES_DIR}${fixture}`, 'utf8')));
    const events = history.events ?? [];
    const rebuilt = await transcriptFromEvents(events, decode);
    const completed = events.at(-1)?.workflowExecutionCompletedEventAttributes;
    if (rebuilt.messages === undefined) throw new Error(`${fixture}: the rebuild left the transcript to a worker`);
    if (completed) {
      const output = (await decode(completed.result?.payloads)) as AgentRunOutput;
      expect(rebuilt.messages).toHaveLength(output.messageCount);
      expect(rebuilt.messages.at(-1)?.role).toBe(output.stopReason === 'completed' ? 'assistant' : 'tool');
    }
    expect(rebuilt.closedAs).toBeDefined();
  });
});
