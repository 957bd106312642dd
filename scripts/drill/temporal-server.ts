// The Temporal server as the Compose file's `temporal` service runs it (temporalio/auto-setup): the schema set
// up with Temporal's own SQL tool (create, setup-schema 0.0, update-schema to the module's versioned schema, for
// the main and the visibility database), then the server started on the image's config template with the
// image's environment variables, then the default namespace created. Only the addresses differ: loopback ports
// chosen free, so the drill never collides with another server on this machine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import type { TemporalServerBuild } from './build-server.js';
import type { Postgres } from './postgres.js';
import { freePort, run, startService, type Service } from './processes.js';

/** A running Temporal server. */
export interface TemporalServer {
  address: string;
  namespace: string;
  service: Service;
  /** Milliseconds: schema setup, server start until it answers, namespace creation. */
  timings: { schemaMs: number; startMs: number; namespaceMs: number };
}

/** Sets the schemas up, starts the server, creates `namespace`. */
export async function startTemporalServer(
  build: TemporalServerBuild,
  postgres: Postgres,
  dir: string,
  options: { namespace: string; temporalCli: string; verbose: boolean },
): Promise<TemporalServer> {
  const schemaStarted = performance.now();
  const sqlEnv = { ...process.env, SQL_PASSWORD: postgres.password };
  const sql = (db: string, args: string[]) =>
    run(
      build.sqlTool,
      [
        '--plugin',
        'postgres12',
        '--ep',
        '127.0.0.1',
        '-p',
        String(postgres.port),
        '-u',
        postgres.user,
        '--db',
        db,
        ...args,
      ],
      { env: sqlEnv, quiet: true },
    );
  const schemas = join(build.moduleDir, 'schema', 'postgresql', 'v12');
  for (const [db, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    await sql(db, ['create']);
    await sql(db, ['setup-schema', '-v', '0.0']);
    await sql(db, ['update-schema', '-d', join(schemas, schema, 'versioned')]);
  }
  const schemaMs = performance.now() - schemaStarted;

  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const dynamicConfig = join(dir, 'dynamicconfig.yaml');
  // The image ships an empty dynamic config: server defaults, as in production.
  writeFileSync(dynamicConfig, '# server defaults\n');
  const ports: Record<string, number> = {};
  for (const name of [
    'FRONTEND_GRPC_PORT',
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'INTERNAL_FRONTEND_GRPC_PORT',
    'INTERNAL_FRONTEND_HTTP_PORT',
    'INTERNAL_FRONTEND_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ]) {
    ports[name] = await freePort();
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // As in docker-compose.yml's `temporal` service …
    DB: 'postgres12',
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: postgres.password,
    POSTGRES_SEEDS: '127.0.0.1',
    DEFAULT_NAMESPACE: options.namespace,
    // … with loopback addresses instead of the container network.
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: dynamicConfig,
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
  };
  // The image renders config/docker.yaml from the module's template with these variables (dockerize); so does
  // render-config.go, with Go's own template engine.
  await run(
    'go',
    [
      'run',
      fileURLToPath(new URL('render-config.go', import.meta.url)),
      join(build.moduleDir, 'docker', 'config_template.yaml'),
      join(configDir, 'docker.yaml'),
    ],
    { env: { ...build.goEnv, ...env }, quiet: true },
  );
  const address = `127.0.0.1:${ports.FRONTEND_GRPC_PORT}`;
  const startStarted = performance.now();
  const service = startService(
    'temporal-server',
    build.server,
    ['--root', dir, '--config', 'config', '--env', 'docker', '--allow-no-auth', 'start'],
    { env, verbose: options.verbose },
  );
  await waitForFrontend(address, service);
  const startMs = performance.now() - startStarted;

  const namespaceStarted = performance.now();
  const cli = (args: string[]) => run(options.temporalCli, [...args, '--address', address], { quiet: true });
  // auto-setup creates the default namespace with a day of retention.
  await cli(['operator', 'namespace', 'create', '--namespace', options.namespace, '--retention', '24h']);
  for (let i = 0; ; i++) {
    try {
      await cli(['operator', 'namespace', 'describe', '--namespace', options.namespace]);
      break;
    } catch (error) {
      if (i > 100) throw error;
      await delay(200);
    }
  }
  return {
    address,
    namespace: options.namespace,
    service,
    timings: { schemaMs, startMs, namespaceMs: performance.now() - namespaceStarted },
  };
}

async function waitForFrontend(address: string, service: Service): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (service.child.exitCode !== null) throw new Error(`The Temporal server exited:\n${service.tail()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`The Temporal server did not answer at ${address}: ${String(error)}\n${service.tail()}`);
      await delay(250);
    }
  }
}
