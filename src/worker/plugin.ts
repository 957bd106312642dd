// A Temporal plugin that brings durable agents to a worker and a client a team already has: the `agentRun`
// workflow, the agent activities, the payload codec and the worker defaults agents rely on, next to the team's own
// workflows on the team's own task queue.
import { resolveLiveStream } from '../live/live-stream-config.js';
import type { ClientOptions } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import type { Agent } from '../agent/agent.js';
import { AgentRegistry } from '../agent/registry.js';
import { payloadCodecFromEnv } from '../codec/payload-codec-from-env.js';
import { withPayloadCodec } from '../codec/with-payload-codec.js';
import { withWorkerPayloadCodec } from '../codec/worker-payload-codec.js';
import { McpRuntime } from '../runtime/mcp-runtime.js';
import { runtimeOptionsOf, type AgentRuntimeOptions } from '../runtime/options.js';
import { ProviderRegistry } from '../models/provider-registry.js';
import { checkAgentCredentials } from './check-credentials.js';
import { createActivitySpanInterceptor } from '../telemetry/activity-spans.js';
import type { AgentTelemetry } from '../telemetry/agent-telemetry.js';
import { telemetryFromEnv } from '../telemetry/telemetry-from-env.js';
import { AgentPluginError } from './errors/agent-plugin-error.js';
import { agentBundleOptions } from './bundle-options.js';
import { USER_WORKFLOWS_ALIAS, combinedWorkflowsPath, workflowsPath } from './workflow-paths.js';

/** Options of {@link DurableAgentPlugin}: the agents, how the worker runs them, and the payload codec and tracing. */
export interface DurableAgentPluginOptions extends AgentRuntimeOptions {
  /** The agents the worker hosts, by name. */
  agents: Agent[] | AgentRegistry;
  /**
   * Compresses/encrypts payloads of the worker and client the plugin is given to (see `createPayloadCodec`).
   * Default: `payloadCodecFromEnv()` (`DURABLE_AGENT_ENCRYPTION_KEY`, …), unless the worker's or client's
   * `dataConverter` already has codecs. `false`: none. It applies to every payload of that worker or client, the
   * team's own workflows included: with no key configured it encodes nothing.
   */
  payloadCodec?: PayloadCodec | false;
  /**
   * Tracing: Temporal's OpenTelemetry interceptors plus a span per tool call. Default: `telemetryFromEnv()` (off
   * unless `OTEL_TRACES_EXPORTER` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set). `false`: off.
   */
  telemetry?: AgentTelemetry | false;
}

/**
 * Worker settings agents rely on, applied only where the worker's own options leave them unset. Streaming tools
 * record each yield as a heartbeat, so heartbeats are flushed promptly (a crash loses at most one step). A worker
 * asked to stop lets running tools finish for 30 s instead of aborting them at once (Temporal's default is 0, so a
 * tool interrupted by a deploy runs again on the next worker); 10 s later it gives up. Workflow cache and eager
 * activity dispatch keep Temporal's defaults on purpose: never set `maxCachedWorkflows: 0` (every task would replay
 * its run's whole history) nor turn eager dispatch off (each step would wait for task round trips); see
 * docs/performance.md to size the cache for runs that wait.
 */
export const AGENT_WORKER_DEFAULTS = {
  maxHeartbeatThrottleInterval: '200ms',
  defaultHeartbeatThrottleInterval: '200ms',
  shutdownGraceTime: '30s',
  shutdownForceTime: '40s',
} as const satisfies Partial<WorkerOptions>;

/**
 * Adds durable agents to a Temporal worker and client:
 *
 * ```ts
 * const agents = new DurableAgentPlugin({ agents: [assistant] });
 * const worker = await Worker.create({ connection, taskQueue: 'orders', workflowsPath, activities, plugins: [agents] });
 * const client = new Client({ connection, plugins: [agents] });
 * ```
 *
 * The worker then hosts `agentRun` beside its own workflows: when it bundles `workflowsPath`, the plugin's bundler
 * hook builds an entry that re-exports that module and `agentRun`; a worker without workflows gets `agentRun` alone.
 * A prebuilt `workflowBundle` must be built with the plugin too: `bundleWorkflowCode({ workflowsPath, plugins })`.
 */
export class DurableAgentPlugin extends SimplePlugin {
  private readonly payloadCodec: PayloadCodec | false | undefined;
  private readonly telemetry: AgentTelemetry | undefined;
  private readonly agentActivities: Record<string, unknown>;
  /** The worker's MCP connections (the plugin's own close when the worker it runs in stops). */
  readonly mcp: McpRuntime;

  constructor(options: DurableAgentPluginOptions) {
    // Resolved now, so a bad key or exporter in the environment fails before any connection is made.
    if (options.payloadCodec === undefined) payloadCodecFromEnv();
    const telemetry = options.telemetry === false ? undefined : (options.telemetry ?? telemetryFromEnv());
    const mcp = options.mcp ?? new McpRuntime();
    // Made now from the option or the environment (a Redis URL without a stream key fails here, before connecting).
    const live = resolveLiveStream(options.liveStream);
    const ownLive = live !== undefined && live !== options.liveStream;
    super({
      name: 'durable-agent',
      // The worker's run, wrapped: once it stops (after a shutdown, or a fatal error), the plugin's own MCP
      // connections and live stream close. A runtime or transport the caller gave is the caller's to close.
      ...(options.mcp && !ownLive
        ? {}
        : {
            runContext: (run: () => Promise<void>) =>
              run().finally(async () => {
                if (!options.mcp) await mcp.close();
                if (ownLive) await live.close();
              }),
          }),
      ...(telemetry
        ? {
            workerInterceptors: {
              activity: [
                createActivitySpanInterceptor({ tracer: telemetry.tracer, recordContent: telemetry.recordContent }),
              ],
            },
          }
        : {}),
    });
    this.payloadCodec = options.payloadCodec;
    this.telemetry = telemetry;
    this.mcp = mcp;
    const registry = options.agents instanceof AgentRegistry ? options.agents : AgentRegistry.from(options.agents);
    const providers = options.providers ?? new ProviderRegistry();
    // Before any connection: an agent whose provider has no key stops the worker here, not each run later.
    checkAgentCredentials(registry, providers);
    this.agentActivities = createActivities({
      ...runtimeOptionsOf(options),
      providers,
      agents: registry,
      mcp,
      liveStream: live ?? 'workflow',
    });
  }

  /** Adds the payload codec and, with telemetry, Temporal's OpenTelemetry client interceptor. */
  override configureClient(options: ClientOptions): ClientOptions {
    const traced = this.telemetry ? this.telemetry.temporalPlugin.configureClient(options) : options;
    const configured = super.configureClient(traced);
    const dataConverter = withPayloadCodec(configured.dataConverter, this.payloadCodec);
    return { ...configured, ...(dataConverter ? { dataConverter } : {}) };
  }

  /** Adds the agent activities, `agentRun`, the payload codec, tracing and the {@link AGENT_WORKER_DEFAULTS}. */
  override configureWorker(options: WorkerOptions): WorkerOptions {
    const existing = (options.activities ?? {}) as Record<string, unknown>;
    // Given both to the connection and to the worker, a plugin is asked twice: the second time is a no-op.
    if (Object.entries(this.agentActivities).every(([name, fn]) => existing[name] === fn)) return options;
    const taken = Object.keys(this.agentActivities).filter((name) => Object.hasOwn(existing, name));
    if (taken.length > 0) {
      throw new AgentPluginError(
        'Plugin.ActivityNameTaken',
        `The worker already has activities named ${taken.map((n) => `'${n}'`).join(', ')}, which the agent workflow ` +
          'calls by those names: rename your activities, or host agents on a worker of their own.',
      );
    }
    const traced = this.telemetry ? this.telemetry.temporalPlugin.configureWorker(options) : options;
    const configured = super.configureWorker(traced);
    const dataConverter = withWorkerPayloadCodec(configured.dataConverter, this.payloadCodec);
    return {
      ...withDefaults(configured),
      activities: { ...configured.activities, ...this.agentActivities },
      ...(dataConverter ? { dataConverter } : {}),
      // No workflows of its own: the worker hosts `agentRun` alone. With a `workflowsPath`, the bundler hook below
      // joins the two; with a prebuilt bundle, the bundle was (or must have been) built with this plugin.
      ...(configured.workflowsPath || configured.workflowBundle ? {} : { workflowsPath: workflowsPath() }),
    };
  }

  /** A replay worker gets the same workflows, data converter and tracing as the worker. */
  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const traced = this.telemetry ? this.telemetry.temporalPlugin.configureReplayWorker(options) : options;
    const configured = super.configureReplayWorker(traced);
    const dataConverter = withWorkerPayloadCodec(configured.dataConverter, this.payloadCodec);
    return {
      ...configured,
      ...(dataConverter ? { dataConverter } : {}),
      ...(configured.workflowsPath || configured.workflowBundle ? {} : { workflowsPath: workflowsPath() }),
    };
  }

  /**
   * Bundles `agentRun` with the worker's own workflows: the entry becomes `workflows/with-user-workflows`, which
   * re-exports the worker's `workflowsPath` (aliased) and `agentRun`. Workflow interceptors of the tracing are added,
   * the agent workflow's modules are preloaded (shared by every run, see `agentPreloadModules`), and TypeScript is
   * compiled for the syntax Node runs natively (see `agentBundleOptions`).
   */
  override configureBundler(options: BundleOptions): BundleOptions {
    const traced = this.telemetry ? this.telemetry.temporalPlugin.configureBundler(options) : options;
    const configured = agentBundleOptions(super.configureBundler(traced));
    const agentOnly = workflowsPath();
    if (configured.workflowsPath === agentOnly || configured.workflowsPath === combinedWorkflowsPath()) {
      return configured;
    }
    const userWorkflows = configured.workflowsPath;
    const previousHook = configured.webpackConfigHook;
    return {
      ...configured,
      workflowsPath: combinedWorkflowsPath(),
      webpackConfigHook: (config) => {
        const base = previousHook ? previousHook(config) : config;
        // Temporal's bundler config keeps aliases as an object; `$` makes the alias match the exact name only.
        const alias = { ...(base.resolve?.alias as Record<string, string | false> | undefined) };
        alias[`${USER_WORKFLOWS_ALIAS}$`] = userWorkflows;
        return { ...base, resolve: { ...base.resolve, alias } };
      },
    };
  }
}

function withDefaults(options: WorkerOptions): WorkerOptions {
  const defaults: Partial<WorkerOptions> = {};
  for (const [key, value] of Object.entries(AGENT_WORKER_DEFAULTS) as [keyof typeof AGENT_WORKER_DEFAULTS, string][]) {
    if (options[key] === undefined) defaults[key] = value;
  }
  return { ...options, ...defaults };
}
