// The agent plugin bundles TypeScript workflow code for the syntax Node runs natively (ES2021), not Temporal's
// ES2017, so the loop's object spreads are not helper calls; and it keeps whatever else the bundler options ask.
import { DefaultLogger, bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { WORKFLOW_SYNTAX_TARGET, agentBundleOptions, withNativeSyntax } from '../../src/worker/bundle-options.js';
import { DurableAgentPlugin } from '../../src/worker/plugin.js';
import { agentPreloadModules, workflowsPath } from '../../src/worker/workflow-paths.js';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** The rules Temporal's bundler writes (see its bundler.js): source maps for JavaScript, swc for TypeScript. */
function temporalConfig(target: string): WebpackConfig {
  return {
    mode: 'development',
    module: {
      rules: [
        { test: /\.js$/, enforce: 'pre', use: ['/x/source-map-loader/index.js'] },
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: {
            loader: '/x/node_modules/swc-loader/src/index.js',
            options: { sourceMap: true, jsc: { target, parser: { syntax: 'typescript', decorators: true } } },
          },
        },
      ],
    },
  };
}

function swcOptions(config: WebpackConfig) {
  const rule = config.module!.rules![1] as { use: { options: { sourceMap: boolean; jsc: Record<string, unknown> } } };
  return rule.use.options;
}

describe('agent bundle options', () => {
  it("raises swc's target from ES2017 to ES2021 and keeps every other setting", () => {
    const before = temporalConfig('es2017');
    const after = withNativeSyntax(before);
    expect(swcOptions(after).jsc.target).toBe(WORKFLOW_SYNTAX_TARGET);
    expect(swcOptions(after).jsc.parser).toEqual({ syntax: 'typescript', decorators: true });
    expect(swcOptions(after).sourceMap).toBe(true);
    expect(after.module!.rules![0]).toBe(before.module!.rules![0]);
    // The config it was given is not changed.
    expect(swcOptions(before).jsc.target).toBe('es2017');
  });

  it('never lowers a newer target, and leaves rules without swc alone', () => {
    expect(swcOptions(withNativeSyntax(temporalConfig('es2022'))).jsc.target).toBe('es2022');
    expect(swcOptions(withNativeSyntax(temporalConfig('esnext'))).jsc.target).toBe('esnext');
    const noRules: WebpackConfig = { mode: 'development' };
    expect(withNativeSyntax(noRules)).toBe(noRules);
  });

  it("runs after the options' own webpack hook, and preloads the agent modules once", () => {
    const calls: string[] = [];
    const options = agentBundleOptions({
      workflowsPath: workflowsPath(),
      preloadModules: [agentPreloadModules()[0]!, '/team/workflows/shared.ts'],
      webpackConfigHook: (config) => {
        calls.push(swcOptions(config).jsc.target as string);
        return config;
      },
    });
    const [first, ...rest] = agentPreloadModules();
    expect(options.preloadModules).toEqual([first, '/team/workflows/shared.ts', ...rest]);
    const config = options.webpackConfigHook!(temporalConfig('es2017'));
    expect(calls).toEqual(['es2017']);
    expect(swcOptions(config).jsc.target).toBe(WORKFLOW_SYNTAX_TARGET);
  });

  it("is what the plugin's bundler hook applies, with a team's own workflows too", () => {
    const plugin = new DurableAgentPlugin({
      agents: [new Agent({ name: 'a', instructions: '', model: 'offline/demo' })],
      telemetry: false,
      payloadCodec: false,
    });
    for (const path of [workflowsPath(), '/team/workflows/index.ts']) {
      const options = plugin.configureBundler({ workflowsPath: path });
      expect(swcOptions(options.webpackConfigHook!(temporalConfig('es2017'))).jsc.target).toBe(WORKFLOW_SYNTAX_TARGET);
    }
  });

  it('bundles the agent workflow with native object spreads (no ES2017 helper calls)', async () => {
    const bundle = await bundleWorkflowCode(
      agentBundleOptions({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') }),
    );
    expect(bundle.code).toContain('agentRun');
    expect(bundle.code).not.toMatch(/_object_spread(_props)?\(/);
  }, 60_000);
});
