// The public API by audience: each subpath of the package exports what its audience needs and nothing that loads
// more than it should. Resolved through package.json "exports", to the source each built file comes from (dist/src/x.js
// is built from src/x.ts), so no build is needed; test/integration/packaging.test.ts checks the built package.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXPORTS = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { exports: Record<string, unknown> })
  .exports;

/** The source file a package specifier resolves to: its `exports` entry's built file, mapped back to its source. */
function sourceOf(specifier: string): string {
  const subpath = specifier === 'durable-agent' ? '.' : `.${specifier.slice('durable-agent'.length)}`;
  const entry = EXPORTS[subpath] as { default: string } | undefined;
  if (!entry) throw new Error(`package.json exports no '${subpath}'`);
  return new URL(entry.default.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts'), `file://${ROOT}`).href;
}

/** Imports `specifier` in a fresh Node process and reports its export names and the Temporal packages it loaded. */
function load(specifier: string): { exports: string[]; temporal: string[] } {
  const script = `
    import { createRequire } from 'node:module';
    const mod = await import(${JSON.stringify(sourceOf(specifier))});
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const temporal = [...new Set(cache.flatMap((p) => p.match(/@temporalio\\/[a-z-]+/g) ?? []))].sort();
    console.log(JSON.stringify({ exports: Object.keys(mod).sort(), temporal }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { exports: string[]; temporal: string[] };
}

describe('public API', () => {
  it('durable-agent/client loads no native Temporal worker', () => {
    const client = load('durable-agent/client');
    expect(client.exports).toEqual(expect.arrayContaining(['AgentClient', 'AgentRun', 'RunRequestRejectedError']));
    expect(client.temporal).toContain('@temporalio/client');
    expect(client.temporal).not.toContain('@temporalio/worker');
    expect(client.temporal).not.toContain('@temporalio/core-bridge');
  });

  it('durable-agent/http serves runs to web frontends and loads no native Temporal worker', () => {
    const http = load('durable-agent/http');
    expect(http.exports).toEqual(
      expect.arrayContaining(['createAgentHandler', 'toNodeListener', 'UiMessageChunkMapper', 'RefusalCode']),
    );
    expect(http.temporal).toContain('@temporalio/client');
    expect(http.temporal).not.toContain('@temporalio/worker');
    expect(http.temporal).not.toContain('@temporalio/core-bridge');
  });

  it('durable-agent defines agents and tools, without runtime internals', () => {
    const root = load('durable-agent');
    expect(root.exports).toEqual(
      expect.arrayContaining([
        'Agent',
        'createTool',
        'createToolkit',
        'ToolManager',
        'MCPConfiguration',
        'createToolRouter',
      ]),
    );
    for (const internal of [
      'AgentClient',
      'createAgentWorker',
      'approvalSignal',
      'ScriptedLanguageModel',
      'agentRun',
    ]) {
      expect(root.exports).not.toContain(internal);
    }
    expect(root.temporal).not.toContain('@temporalio/worker');
  });

  it('durable-agent/worker, /workflow and /testing export their audiences’ pieces', () => {
    expect(load('durable-agent/worker').exports).toEqual(
      expect.arrayContaining([
        'createAgentWorker',
        'DurableAgentPlugin',
        'runUntilSignal',
        'createActivities',
        'ProviderRegistry',
        'createPayloadCodec',
      ]),
    );
    const workflow = load('durable-agent/workflow');
    expect(workflow.exports).toEqual(
      expect.arrayContaining(['agentRun', 'approvalSignal', 'stateQuery', 'AGENT_RUN_WORKFLOW']),
    );
    expect(workflow.temporal).not.toContain('@temporalio/worker');
    expect(load('durable-agent/testing').exports).toEqual(
      expect.arrayContaining(['ScriptedLanguageModel', 'OfflineDemoModel', 'startDevServer']),
    );
  });
});
