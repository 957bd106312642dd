// Every error a caller can get is a DurableAgentError with a stable code, recognised across copies of the package,
// and docs/errors.md lists every code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as client from '../../src/client/index.js';
import { RunFailedError } from '../../src/client/errors/run-failed-error.js';
import * as worker from '../../src/worker/index.js';
import * as testing from '../../src/testing/index.js';
import { CliFailure } from '../../src/cli/errors/cli-failure.js';
import { CliUsageError } from '../../src/cli/errors/cli-usage-error.js';
import { DurableAgentError } from '../../src/errors/durable-agent-error.js';
import { MCP_FAILURE_CODES } from '../../src/mcp/errors/mcp-server-error.js';
import { RefusalCode } from '../../src/protocol/refusal-codes.js';

const {
  AgentNotFoundError,
  CallToolRefusedError,
  CheckpointTooLargeError,
  ClientHTTPError,
  MCPAuthorizationError,
  MCPConfigurationError,
  McpServerError,
  McpToolError,
  ToolDeniedError,
  ToolRoutingConfigError,
} = root;
const {
  ConnectionConfigError,
  NoWorkerError,
  PayloadCodecError,
  RunRequestRejectedError,
  RunWithoutStreamError,
  TemporalConnectionError,
  WorkerTimeoutError,
} = client;
const {
  AgentPluginError,
  InvalidModelIdError,
  LocalToolError,
  MissingApiKeyError,
  ScriptedModelExhaustedError,
  TelemetryConfigError,
  UnknownProviderError,
} = { ...root, ...worker } as typeof root & typeof worker;

const noWorker = { runId: 'r', taskQueue: 'q', namespace: 'default', request: 'the state query', timeoutMs: 1 };

/** One instance of every error class, built as the library builds it. */
const samples: Record<string, () => DurableAgentError> = {
  AgentNotFoundError: () => new AgentNotFoundError('a', []),
  AgentPluginError: () => new AgentPluginError('Plugin.ActivityNameTaken', 'taken'),
  CallToolRefusedError: () => new CallToolRefusedError('approval-unavailable', 'refused'),
  CheckpointTooLargeError: () => new CheckpointTooLargeError('t', 2, 1),
  CliFailure: () => new CliFailure('failed'),
  CliUsageError: () => new CliUsageError('usage'),
  ClientHTTPError: () => new ClientHTTPError('PlanError', 402, 'TOOL_PLAN_REQUIRED', 'upgrade'),
  ConnectionConfigError: () => new ConnectionConfigError('bad profile'),
  InvalidModelIdError: () => new InvalidModelIdError('gpt'),
  LocalToolError: () => new LocalToolError('t', 'local'),
  MCPAuthorizationError: () => new MCPAuthorizationError('t', 's'),
  MCPConfigurationError: () => new MCPConfigurationError('bad'),
  McpServerError: () => new McpServerError({ serverName: 's', reason: 'timeout', message: 'slow' }),
  McpToolError: () => new McpToolError({ serverName: 's', toolName: 't', message: 'no', content: [] }),
  MissingApiKeyError: () =>
    new MissingApiKeyError({ provider: 'openai', envVar: 'OPENAI_API_KEY', modelRef: 'openai/x' }),
  NoWorkerError: () => new NoWorkerError({ ...noWorker, pending: false }),
  PayloadCodecError: () => new PayloadCodecError('Codec.UnknownKeyId', 'unknown key'),
  RunFailedError: () => new RunFailedError({ runId: 'r1', rootMessage: 'boom', failureType: 'Agent.NotFound' }),
  RunRequestRejectedError: () => new RunRequestRejectedError('decided', { code: RefusalCode.ApprovalAlreadyDecided }),
  RunWithoutStreamError: () => new RunWithoutStreamError('w'),
  ScriptedModelExhaustedError: () =>
    new ScriptedModelExhaustedError({ modelId: 'm', callIndex: 0, stepCount: 0, lastUserText: '' }),
  TelemetryConfigError: () => new TelemetryConfigError('OTEL_X', 'bad'),
  TemporalConnectionError: () =>
    new TemporalConnectionError({ address: 'a', namespace: 'n', origin: 'o', problem: 'p', advice: 'a' }),
  ToolDeniedError: () => new ToolDeniedError({ toolName: 't', message: 'no' }),
  ToolRoutingConfigError: () => new ToolRoutingConfigError('toolRouting.topK', 'bad'),
  UnknownProviderError: () => new UnknownProviderError({ provider: 'p', modelRef: 'p/m', knownProviders: [] }),
  WorkerTimeoutError: () => new WorkerTimeoutError({ ...noWorker, pollers: [], pending: false }),
};

type ErrorClass = { name: string; isInstance(value: unknown): boolean; prototype: object };

/** Every error class a public entry exports, plus the CLI's own. */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>([
    ['CliFailure', CliFailure],
    ['CliUsageError', CliUsageError],
  ]);
  for (const entry of [root, client, worker, testing] as Array<Record<string, unknown>>) {
    for (const [name, value] of Object.entries(entry)) {
      if (typeof value !== 'function' || value === DurableAgentError) continue;
      if (value.prototype instanceof Error) classes.set(name, value as unknown as ErrorClass);
    }
  }
  return classes;
}

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = (code: string) => docs.includes(`\`${code}\``);

describe('errors', () => {
  it('every exported error class extends DurableAgentError and has its own isInstance', () => {
    const classes = exportedErrorClasses();
    expect([...classes.keys()].sort()).toEqual(Object.keys(samples).sort());
    for (const [name, cls] of classes) {
      expect(cls.prototype instanceof DurableAgentError, name).toBe(true);
      expect(Object.hasOwn(cls, 'isInstance'), `${name}.isInstance`).toBe(true);
    }
  });

  it('isInstance tells the classes apart, across copies of the package', () => {
    const classes = exportedErrorClasses();
    for (const [name, make] of Object.entries(samples)) {
      const error = make();
      expect(DurableAgentError.isInstance(error), name).toBe(true);
      expect(error.code, name).toMatch(
        name === 'ClientHTTPError' || name === 'ToolDeniedError' ? /./ : /^[A-Z]\w*\.[A-Z]\w*$/,
      );
      for (const [other, cls] of classes) {
        const related = other === name || (name === 'ToolDeniedError' && other === 'ClientHTTPError');
        expect(cls.isInstance(error), `${other}.isInstance(${name})`).toBe(related);
      }
      // Another copy of the package builds its errors with the same registry-wide symbols, not the same classes.
      const copy: Record<symbol, unknown> = Object.create(null) as Record<symbol, unknown>;
      for (const symbol of Object.getOwnPropertySymbols(error)) copy[symbol] = (error as never)[symbol];
      expect(classes.get(name)!.isInstance(copy), `${name} from another copy`).toBe(true);
    }
    expect(DurableAgentError.isInstance(new Error('plain'))).toBe(false);
    expect(NoWorkerError.isInstance({ code: 'Client.NoWorker' })).toBe(false);
  });

  it('docs/errors.md lists every code', () => {
    const codes = [
      ...Object.values(RefusalCode),
      ...Object.values(MCP_FAILURE_CODES),
      ...Object.entries(samples)
        .filter(([name]) => name !== 'ClientHTTPError' && name !== 'ToolDeniedError')
        .map(([, make]) => make().code),
      ...([
        'Codec.UnknownKeyId',
        'Codec.DecryptionFailed',
        'Codec.MalformedPayload',
        'Codec.DecompressedTooLarge',
        'Codec.UnsupportedVersion',
        'Codec.PlaintextRefused',
        'Codec.ContextMismatch',
        'Codec.InvalidConfig',
      ] satisfies Array<InstanceType<typeof PayloadCodecError>['code']>),
    ];
    const missing = [...new Set(codes)].filter((code) => !documented(code));
    expect(missing).toEqual([]);
    for (const name of Object.keys(samples)) expect(docs, name).toContain(`\`${name}\``);
  });
});
