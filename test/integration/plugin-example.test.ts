// `examples/plugin-worker.ts` runs as documented: a team's worker and client with the agent plugin run the team's
// own workflow, a workflow that delegates to an agent as a child run, and an agent run started directly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testServer } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('examples/plugin-worker.ts', () => {
  it('runs the three kinds of work on one worker and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/plugin-worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: testServer().address, OPENAI_API_KEY: '', AGENT_MODEL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('team workflow:        Your day in Paris: museums in the morning');
    expect(stdout).toMatch(/workflow with agent: {2}Your day in Tokyo: .*"city":"Tokyo"/s);
    expect(stdout).toMatch(/agent run agent-assistant-[0-9a-f-]+: .*"city":"London"/s);
  });
});
