// Looks for secrets everywhere a run leaves a trace on the Temporal server: every event of its history (failure
// messages, stack traces, heartbeat details, memo, markers), every payload both as stored and decoded, and the
// server's description of the run (pending activities with their last failure and heartbeat). Tests plant canary
// secrets where a careless runtime would leak them and assert that none is found.
import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** A secret to look for: a string (searched as text, also inside byte fields), or key bytes (also as hex/base64). */
export type Canary = string | Uint8Array;

/** Where a canary was found. */
export interface SecretFinding {
  canary: string;
  /** Path of the field, e.g. `history.events[14].workflowExecutionFailedEventAttributes.failure.cause.stackTrace`. */
  where: string;
}

/** What {@link scanRunForSecrets} looks through. */
export interface SecretScanTarget {
  client: Client;
  workflowId: string;
  /** Decodes the stored payloads so their content is searched too (a codec server has no more than this). */
  codec?: PayloadCodec;
  /** More text to search, e.g. captured log lines, by name. */
  extra?: Record<string, string[]>;
}

/** Every place in the run's records where one of `canaries` (by name) appears. */
export async function scanRunForSecrets(
  target: SecretScanTarget,
  canaries: Record<string, Canary>,
): Promise<SecretFinding[]> {
  const handle = target.client.workflow.getHandle(target.workflowId);
  const history = await handle.fetchHistory();
  const description = await target.client.workflowService.describeWorkflowExecution({
    namespace: target.client.options.namespace,
    execution: { workflowId: target.workflowId },
  });
  const fields: [string, string | Uint8Array][] = [];
  collect(history, 'history', fields);
  collect(description, 'describe', fields);

  if (target.codec) {
    const payloads: [string, Payload][] = [];
    collectPayloads(history, 'history', payloads);
    for (const [where, payload] of payloads) {
      // Each payload on its own: one that this codec cannot read must not hide the others.
      const decoded = await target.codec.decode([payload]).catch(() => []);
      for (const inner of decoded) collect(inner, `${where}(decoded)`, fields);
    }
  }
  for (const [name, lines] of Object.entries(target.extra ?? {})) {
    lines.forEach((line, i) => fields.push([`${name}[${i}]`, line]));
  }
  return findCanaries(fields, canaries);
}

/** The canaries found in `fields` (path, text or bytes). Exported so a test can check its own control values. */
export function findCanaries(
  fields: [string, string | Uint8Array][],
  canaries: Record<string, Canary>,
): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const [name, canary] of Object.entries(canaries)) {
    const texts = typeof canary === 'string' ? [canary] : variantsOfBytes(canary);
    const bytes = typeof canary === 'string' ? [Buffer.from(canary, 'utf8')] : [Buffer.from(canary)];
    for (const [where, value] of fields) {
      const found =
        typeof value === 'string'
          ? texts.some((text) => value.includes(text))
          : bytes.some((needle) => Buffer.from(value).includes(needle)) ||
            texts.some((text) => Buffer.from(value).includes(Buffer.from(text, 'utf8')));
      if (found) findings.push({ canary: name, where });
    }
  }
  return findings;
}

function variantsOfBytes(bytes: Uint8Array): string[] {
  const buffer = Buffer.from(bytes);
  return [buffer.toString('base64'), buffer.toString('base64url'), buffer.toString('hex')];
}

/** Every string and byte field under `value`, with its path. Long ids (protobuf Longs) are skipped. */
function collect(value: unknown, path: string, out: [string, string | Uint8Array][], seen = new Set<object>()): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (value instanceof Uint8Array) out.push([path, value]);
  else if (typeof value === 'object' && value !== null && !seen.has(value)) {
    seen.add(value);
    for (const [key, child] of Object.entries(value)) collect(child, `${path}.${key}`, out, seen);
  }
}

/** Every payload (an object with `data` bytes and a `metadata` map) under `value`, with its path. */
function collectPayloads(value: unknown, path: string, out: [string, Payload][]): void {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && typeof record.metadata === 'object' && record.metadata !== null) {
    out.push([path, record as Payload]);
    return;
  }
  for (const [key, child] of Object.entries(record)) collectPayloads(child, `${path}.${key}`, out);
}
