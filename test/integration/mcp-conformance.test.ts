// The official MCP conformance suite's client scenarios, run against a small client built on our library
// (test/fixtures/mcp/conformance-client.ts). The `auth/*` scenarios are skipped: they test OAuth flows
// (discovery, dynamic registration, token exchange), and our server configurations take static headers only.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const conformanceCli = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const clientCommand = `${process.execPath} --import tsx test/fixtures/mcp/conformance-client.ts`;

/** Client scenarios that apply to a tools client, and the checks each must pass. */
const SCENARIOS: Record<string, string[]> = {
  initialize: ['mcp-client-initialization'],
  tools_call: ['tool-add-numbers'],
  'elicitation-sep1034-client-defaults': [
    'client-elicitation-sep1034-string-default',
    'client-elicitation-sep1034-integer-default',
    'client-elicitation-sep1034-number-default',
    'client-elicitation-sep1034-enum-default',
    'client-elicitation-sep1034-boolean-default',
  ],
  'sse-retry': ['client-sse-graceful-reconnect', 'client-sse-retry-timing', 'client-sse-last-event-id'],
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let outputDir: string;

beforeAll(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
});

afterAll(async () => {
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

async function runScenario(scenario: string): Promise<Check[]> {
  const dir = join(outputDir, scenario.replace(/\W/g, '_'));
  await run(
    process.execPath,
    [conformanceCli, 'client', '--command', clientCommand, '--scenario', scenario, '--timeout', '30000', '-o', dir],
    { cwd: process.cwd(), timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`conformance ${scenario} failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
  });
  const [resultDir] = await readdir(dir);
  return JSON.parse(await readFile(join(dir, resultDir!, 'checks.json'), 'utf8')) as Check[];
}

describe('MCP conformance client scenarios (@modelcontextprotocol/conformance 0.1.16)', () => {
  it('covers every non-auth client scenario the suite lists', async () => {
    const { stdout } = await run(process.execPath, [conformanceCli, 'list']);
    const clientSection = stdout.slice(stdout.indexOf('Client scenarios'));
    const listed = [...clientSection.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    expect(listed.filter((name) => !name.startsWith('auth/')).sort()).toEqual(Object.keys(SCENARIOS).sort());
  });

  for (const [scenario, required] of Object.entries(SCENARIOS)) {
    it(`passes ${scenario}`, async () => {
      const checks = await runScenario(scenario);
      expect(checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')).toEqual([]);
      for (const id of required) expect(checks.find((check) => check.id === id)?.status, id).toBe('SUCCESS');
    });
  }
});
