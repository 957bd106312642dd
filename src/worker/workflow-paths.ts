// Where the workflow code that a worker bundles lives: as TypeScript source (tsx, tests) or compiled JavaScript
// (dist), next to this package's sources.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The import name under which the agent plugin's bundler hook aliases a worker's own workflows module, so that
 * `workflows/with-user-workflows.ts` can re-export it next to `agentRun`.
 */
export const USER_WORKFLOWS_ALIAS = '__durable_agent_user_workflows__';

/** The workflow entry point hosting only `agentRun`. */
export function workflowsPath(): string {
  return packageFile('workflows/index');
}

/** The workflow entry point that re-exports a worker's own workflows (see {@link USER_WORKFLOWS_ALIAS}) and `agentRun`. */
export function combinedWorkflowsPath(): string {
  return packageFile('workflows/with-user-workflows');
}

/**
 * Modules of the agent workflow that every run of a worker can share: the loop and the protocol it imports. The
 * workflow sandbox otherwise evaluates each module once per cached run (its closures, classes and export getters
 * are per-run copies, about half of a waiting run's memory); preloaded modules are evaluated once, before any run,
 * and frozen. They hold no state of a run at module level (keep it so: state lives in `AgentRunState`).
 */
export function agentPreloadModules(): string[] {
  return [packageFile('workflows/agent-run'), packageFile('workflows/conversation')];
}

function packageFile(stem: string): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`../../${stem}.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`Cannot find ${stem}.ts or ${stem}.js next to the durable-agent sources: is the package complete?`);
}
