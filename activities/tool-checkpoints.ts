import { jsonBytes, type JsonValue } from '../src/protocol/index.js';
import { CheckpointTooLargeError } from '../src/tool/errors/checkpoint-too-large-error.js';
import type { ToolCheckpoint } from '../src/tool/tool.js';
import { toJson } from './tool-results.js';

/**
 * A streaming tool's checkpoints within one attempt. Each yield is the checkpoint, sent as the activity's heartbeat
 * details; a retried attempt starts from the previous attempt's last one (`resumeFrom`, given back to the tool as
 * `options.checkpoint`), which the heartbeat carries until the tool yields again.
 */
export class ToolCheckpoints {
  readonly resumeFrom: ToolCheckpoint | undefined;
  private latest: ToolCheckpoint | undefined;

  constructor(
    private readonly toolName: string,
    private readonly maxBytes: number,
    heartbeatDetails: unknown,
  ) {
    this.resumeFrom = lastCheckpoint(heartbeatDetails);
    this.latest = this.resumeFrom;
  }

  /** The checkpoint the next heartbeat sends. */
  get current(): ToolCheckpoint | undefined {
    return this.latest;
  }

  /** Records a yield as the checkpoint; a value over the checkpoint limit ends the call with an error. */
  record(value: unknown, seq: number): JsonValue {
    const json = toJson(value);
    const bytes = jsonBytes(json);
    if (bytes > this.maxBytes) throw new CheckpointTooLargeError(this.toolName, bytes, this.maxBytes);
    this.latest = { seq, value: json };
    return json;
  }
}

function lastCheckpoint(details: unknown): ToolCheckpoint | undefined {
  if (details && typeof details === 'object' && typeof (details as ToolCheckpoint).seq === 'number') {
    return details as ToolCheckpoint;
  }
  return undefined;
}
