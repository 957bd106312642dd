// How the agent plugin bundles workflow code: the agent workflow's modules preloaded (shared by every run), and
// TypeScript compiled for the ECMAScript version the worker's Node runs natively rather than Temporal's default.
import type { BundleOptions } from '@temporalio/worker';
import { agentPreloadModules } from './workflow-paths.js';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackRule = NonNullable<NonNullable<WebpackConfig['module']>['rules']>[number];

/**
 * What the bundler's swc compiles TypeScript workflow code to. Temporal's bundler asks for ES2017, so every object
 * spread, `?.` and `??` of a workflow becomes a helper call (the agent loop spreads objects for every event and
 * activity input): about a tenth of a millisecond of workflow-thread CPU per step in the bench's profile. Node 22,
 * this package's minimum, runs ES2021 natively. Not ES2022: class fields stay compiled as Temporal compiles them, so
 * a team's own workflow classes keep their semantics. The published package's workflows are JavaScript already
 * (built for ES2023); this matters when workflows are bundled from TypeScript sources (tests, `tsx`, a team's own).
 */
export const WORKFLOW_SYNTAX_TARGET = 'es2021';

const OLDER_TARGETS = new Set(['es3', 'es5', 'es2015', 'es2016', 'es2017', 'es2018', 'es2019', 'es2020']);

/**
 * Bundler options as the agent plugin makes them: the agent workflow's modules preloaded (once, whatever else the
 * options preload), and TypeScript compiled for {@link WORKFLOW_SYNTAX_TARGET} after any webpack hook of the options.
 */
export function agentBundleOptions(options: BundleOptions): BundleOptions {
  const preload = [...(options.preloadModules ?? [])];
  for (const module of agentPreloadModules()) if (!preload.includes(module)) preload.push(module);
  const previousHook = options.webpackConfigHook;
  return {
    ...options,
    preloadModules: preload,
    webpackConfigHook: (config) => withNativeSyntax(previousHook ? previousHook(config) : config),
  };
}

/** `config` with every swc-loader rule that targets an older version raised to {@link WORKFLOW_SYNTAX_TARGET}. */
export function withNativeSyntax(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules;
  if (!rules) return config;
  return { ...config, module: { ...config.module, rules: rules.map(raiseTarget) } };
}

function raiseTarget(rule: WebpackRule): WebpackRule {
  if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object' || Array.isArray(rule.use)) {
    return rule;
  }
  const use = rule.use as { loader?: string; options?: { jsc?: { target?: string } } };
  const target = use.options?.jsc?.target;
  if (!use.loader?.includes('swc-loader') || target === undefined || !OLDER_TARGETS.has(target)) return rule;
  const options = use.options!;
  return { ...rule, use: { ...use, options: { ...options, jsc: { ...options.jsc, target: WORKFLOW_SYNTAX_TARGET } } } };
}
