import { ToolManager } from '../tool/tool-manager.js';
import type { ToolItem } from '../tool/toolkit.js';

/**
 * The tool set of one run: the agent's static tools plus the run's own. A per-run tool overrides any static tool
 * of the same name (standalone or in a toolkit); a per-run toolkit replaces the static toolkit of the same name in
 * its position, so prompt order stays stable. The static manager is not changed.
 */
export function mergeRunTools(staticTools: ToolManager, runItems: readonly ToolItem[]): ToolManager {
  // Registering the run's items on their own first normalizes them and settles conflicts among them.
  const run = new ToolManager(runItems);
  const claimed = new Set(run.getAllToolNames());
  const runToolkits = new Map(run.getToolkits().map((toolkit) => [toolkit.name, toolkit]));
  const merged = new ToolManager();

  for (const tool of staticTools.getStandaloneTools()) {
    if (!claimed.has(tool.name)) merged.addStandaloneTool(tool);
  }
  for (const toolkit of staticTools.getToolkits()) {
    const replacement = runToolkits.get(toolkit.name);
    if (replacement) {
      merged.addToolkit(replacement);
      runToolkits.delete(toolkit.name);
    } else {
      merged.addToolkit({ ...toolkit, tools: toolkit.tools.filter((tool) => !claimed.has(tool.name)) });
    }
  }
  for (const toolkit of runToolkits.values()) merged.addToolkit(toolkit);
  for (const tool of run.getStandaloneTools()) merged.addStandaloneTool(tool);
  return merged;
}
