// A worker or client that cannot connect says where it tried, with which settings (profile, file, variables, TLS),
// what went wrong and what to check: against a closed port, TLS spoken to a plaintext server and the other way
// round, an untrusted CA, a refused API key, a missing client certificate, and settings that cannot be used.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../examples/agents.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { main } from '../../src/cli/main.js';
import { ConnectionConfigError } from '../../src/connection/errors/connection-config-error.js';
import { TemporalConnectionError } from '../../src/connection/errors/temporal-connection-error.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { startGrpcTlsProxy, type GrpcTlsProxy } from '../support/grpc-tls-proxy.js';
import { createTestEnv, testServer } from '../support/temporal.js';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.js';

const API_KEY = 'the-right-key';

let certs: TestCertificates;
let apiKeyProxy: GrpcTlsProxy;
let mtlsProxy: GrpcTlsProxy;
let closedPort: number;

beforeAll(async () => {
  await (await createTestEnv()).teardown();
  certs = await createTestCertificates();
  const target = testServer().address;
  apiKeyProxy = await startGrpcTlsProxy({ target, cert: certs.server.cert, key: certs.server.key, apiKey: API_KEY });
  mtlsProxy = await startGrpcTlsProxy({
    target,
    cert: certs.server.cert,
    key: certs.server.key,
    clientCa: certs.ca.cert,
    requireClientCert: true,
  });
  closedPort = await freePort();
});

afterAll(async () => {
  await apiKeyProxy?.close();
  await mtlsProxy?.close();
  certs?.remove();
});

/** A port nothing listens on (bound once, then released). */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Both sides' failures for the same settings: `AgentClient.connect` and `createAgentWorker`. */
async function failures(env: Record<string, string>): Promise<{ client: unknown; worker: unknown }> {
  const clientError = await AgentClient.connect({ env, connectTimeoutMs: 2_000 }).then(
    async (client) => {
      await client.temporal.connection.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  const workerError = await createAgentWorker({ agents: [createAssistant('offline/demo')], env }).then(
    async (worker) => {
      await worker.connection?.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  return { client: clientError, worker: workerError };
}

/** Asserts both sides failed with a TemporalConnectionError whose message matches every pattern. */
function expectBoth(result: { client: unknown; worker: unknown }, patterns: Array<string | RegExp>): void {
  for (const [side, error] of Object.entries(result)) {
    expect(TemporalConnectionError.isInstance(error), `${side}: ${String(error)}`).toBe(true);
    const message = (error as Error).message;
    for (const pattern of patterns) {
      if (typeof pattern === 'string') expect(message, side).toContain(pattern);
      else expect(message, side).toMatch(pattern);
    }
  }
}

describe('connection failures say where, with what, and what to check', () => {
  it('a closed port: nothing is listening', async () => {
    const address = `127.0.0.1:${closedPort}`;
    const result = await failures({ TEMPORAL_ADDRESS: address, HOME: certs.dir });
    expectBoth(result, [
      `Cannot connect to Temporal at ${address} (namespace 'default'; address from TEMPORAL_ADDRESS; no temporal.toml; TEMPORAL_ADDRESS set; TLS off (no TLS is configured))`,
      `nothing is listening on ${address} (connection refused)`,
      'Start a Temporal server there',
    ]);
    expect((result.client as TemporalConnectionError).address).toBe(address);
  });

  it('TLS to a plaintext server: the server does not speak TLS', async () => {
    const result = await failures({ TEMPORAL_ADDRESS: testServer().address, TEMPORAL_TLS: 'true' });
    expectBoth(result, [
      'TLS on (TEMPORAL_TLS)',
      /the server does not speak TLS \(the handshake got "[^"]+"\), but TLS is on/,
      'TEMPORAL_TLS=false',
    ]);
  });

  it('plaintext to a TLS server: turn TLS on', async () => {
    const result = await failures({ TEMPORAL_ADDRESS: apiKeyProxy.address });
    expectBoth(result, [
      'the server speaks TLS, but this connection is plaintext (no TLS is configured)',
      'TEMPORAL_TLS=true',
    ]);
  });

  it('a certificate from a CA the client does not trust', async () => {
    const result = await failures({
      TEMPORAL_ADDRESS: apiKeyProxy.address,
      TEMPORAL_API_KEY: API_KEY,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCa.certPath,
    });
    expectBoth(result, ["the server's certificate is not trusted (", 'TEMPORAL_TLS_SERVER_CA_CERT_PATH']);
  });

  it('a refused API key, named without its value', async () => {
    const result = await failures({
      TEMPORAL_ADDRESS: apiKeyProxy.address,
      TEMPORAL_API_KEY: 'a-wrong-key',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca.certPath,
    });
    expectBoth(result, ['API key set', 'the server refused the credentials', "'authorization: Bearer <key>'"]);
    for (const error of Object.values(result)) expect((error as Error).message).not.toContain('a-wrong-key');
  });

  it('mutual TLS without a client certificate', async () => {
    const result = await failures({
      TEMPORAL_ADDRESS: mtlsProxy.address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca.certPath,
    });
    expectBoth(result, ['the server ended the TLS handshake', 'TEMPORAL_TLS_CLIENT_CERT_PATH']);
  });

  it('names the profile and the file it came from', async () => {
    const configFile = join(certs.dir, 'closed.toml');
    writeFileSync(configFile, `[profile.staging]\naddress = "127.0.0.1:${closedPort}"\nnamespace = "stage"\n`);
    const result = await failures({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' });
    expectBoth(result, [
      `(namespace 'stage'; address from the profile; profile 'staging' of ${configFile}; TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE set`,
      'nothing is listening',
    ]);
  });

  it('refuses settings that cannot be used before connecting, saying which', async () => {
    const configFile = join(certs.dir, 'profiles.toml');
    writeFileSync(configFile, '[profile.prod]\naddress = "x:1"\n[profile.dev]\naddress = "y:1"\n');
    const cases: Array<[Record<string, string>, string]> = [
      [
        { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' },
        `Temporal profile 'staging' (from TEMPORAL_PROFILE) is not in ${configFile}. Profiles there: 'prod', 'dev'.`,
      ],
      [
        { TEMPORAL_CONFIG_FILE: join(certs.dir, 'missing.toml') },
        `The Temporal configuration file ${join(certs.dir, 'missing.toml')} (from TEMPORAL_CONFIG_FILE) does not exist.`,
      ],
      [
        { TEMPORAL_ADDRESS: apiKeyProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(certs.dir, 'nope.crt') },
        `Cannot read the TLS server CA certificate ${join(certs.dir, 'nope.crt')} (TEMPORAL_TLS_SERVER_CA_CERT_PATH)`,
      ],
      [
        { TEMPORAL_ADDRESS: mtlsProxy.address, TEMPORAL_TLS_CLIENT_CERT_PATH: certs.client.certPath },
        'A TLS client certificate comes without its key',
      ],
    ];
    for (const [env, message] of cases) {
      const result = await failures(env);
      for (const [side, error] of Object.entries(result)) {
        expect(ConnectionConfigError.isInstance(error), `${side}: ${String(error)}`).toBe(true);
        expect((error as Error).message).toContain(message);
      }
    }
    const bad = join(certs.dir, 'bad.toml');
    writeFileSync(bad, '[profile.x\naddress = 1');
    const { client } = await failures({ TEMPORAL_CONFIG_FILE: bad });
    expect((client as Error).message).toMatch(new RegExp(`^Cannot read the Temporal configuration file ${bad}: `));
  });

  it('the CLI prints the same explanation and exits 1', async () => {
    let stderr = '';
    const code = await main(['list'], {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: { TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}`, NO_COLOR: '1' },
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `^error: Cannot connect to Temporal at 127\\.0\\.0\\.1:${closedPort} \\(namespace 'default'; .*nothing is listening`,
      ),
    );
  });
});
