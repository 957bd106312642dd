// The embedded dev server carries durable-agent's search attributes, so the demo, `durable-agent dev` and the tests
// have an inbox: a fresh database gets them from `--search-attribute`, and a database kept from before (which the
// flag does not touch) gets them when startDevServer starts on it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../src/protocol/index.js';
import { resolveTemporalBinary, startDevServer } from '../../src/worker/dev-server.js';
import { missingSearchAttributes } from '../../src/runtime/search-attributes-check.js';
import { testServer } from '../support/temporal.js';

const dataDir = mkdtempSync(join(tmpdir(), 'durable-agent-dev-attributes-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function registered(address: string, namespace = 'default'): Promise<Record<string, unknown>> {
  const connection = await Connection.connect({ address });
  try {
    return (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } finally {
    await connection.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('the dev server’s search attributes', () => {
  it('are there, with their types, on the suite’s server', async () => {
    const { address, namespace } = testServer();
    const attributes = await registered(address, namespace);
    expect(missingSearchAttributes(attributes)).toEqual([]);
    expect(Object.keys(attributes)).toEqual(
      expect.arrayContaining(Object.values(SEARCH_ATTRIBUTES).map((a) => a.name)),
    );
  });

  it('are added to a database made by a server started without them', async () => {
    const dbFilename = join(dataDir, 'older.sqlite');
    const port = await freePort();
    const older = spawn(
      resolveTemporalBinary(),
      ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFilename],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => older.once('exit', resolve));
    try {
      await expect
        .poll(() => registered(`127.0.0.1:${port}`).catch(() => undefined), { timeout: 30_000, interval: 250 })
        .toBeDefined();
      expect(missingSearchAttributes(await registered(`127.0.0.1:${port}`))).toHaveLength(5);
    } finally {
      older.kill('SIGTERM');
      await exited;
    }
    const server = await startDevServer({ dbFilename });
    try {
      expect(missingSearchAttributes(await registered(server.address))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
