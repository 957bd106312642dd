// Installs Temporal's @temporalio/ai-sdk into bench/temporal-ai-sdk on first use. It pins @temporalio/* 1.23.0
// and peers ai@^7 / @ai-sdk/provider@^4 / @ai-sdk/mcp@^2, which clash with durable-agent's own @temporalio 1.24
// pins, so it lives in a folder with its own package.json and package-lock.json and is never hoisted.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The isolated folder. */
export const TEMPORAL_AI_SDK_DIR = fileURLToPath(new URL('./temporal-ai-sdk/', import.meta.url));

/**
 * Makes sure the folder's dependencies are installed (`npm ci` from its lockfile). Returns undefined when ready,
 * otherwise why not (npm's own words), so the bench can report it and go on without that runtime.
 */
export function ensureTemporalAiSdkInstalled(log: (line: string) => void): string | undefined {
  if (installed()) return undefined;
  log('Installing @temporalio/ai-sdk into bench/temporal-ai-sdk (npm ci, first run or after its pins changed)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--prefix', TEMPORAL_AI_SDK_DIR, '--no-audit', '--no-fund'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status === 0) return undefined;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
  return `npm ci --prefix bench/temporal-ai-sdk failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`;
}

/** Whether every dependency the folder pins is installed at its pinned version (an older install lacks new pins). */
function installed(): boolean {
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  try {
    const pins = read(join(TEMPORAL_AI_SDK_DIR, 'package.json')).dependencies as Record<string, string>;
    return Object.entries(pins).every(
      ([name, version]) => read(join(TEMPORAL_AI_SDK_DIR, 'node_modules', name, 'package.json')).version === version,
    );
  } catch {
    return false;
  }
}
