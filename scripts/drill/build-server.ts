// Builds the Temporal server and its SQL tool from the Go module `go.temporal.io/server` at the version the
// Compose file's image runs, once, into .tools/ (gitignored): Go module and build caches stay there too, so a
// second drill reuses everything. The build is CPU heavy: it runs at low priority.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './processes.js';

/** The server binary and the SQL tool, and the module's source (schemas, config template). */
export interface TemporalServerBuild {
  version: string;
  server: string;
  sqlTool: string;
  moduleDir: string;
  /** Build time in ms, or undefined when the binaries were already there. */
  builtInMs?: number;
  /** The Go environment the build used (caches in .tools/go), for `go run` of the drill's helpers. */
  goEnv: NodeJS.ProcessEnv;
}

/** The Temporal server version the Compose file runs (`temporalio/auto-setup:<version>`). */
export function composeServerVersion(root: string): string {
  const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
  const version = /image:\s*temporalio\/(?:auto-setup|server):(\d+\.\d+\.\d+)/.exec(compose)?.[1];
  if (!version)
    throw new Error('docker-compose.yml names no temporalio/auto-setup:<x.y.z> or temporalio/server image.');
  return version;
}

/** Builds (or finds) the server binaries for `version`. */
export async function buildTemporalServer(root: string, version: string): Promise<TemporalServerBuild> {
  const goDir = join(root, '.tools', 'go');
  const binDir = join(root, '.tools', 'temporal-server', `v${version}`, 'bin');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GOMODCACHE: join(goDir, 'mod'),
    GOCACHE: join(goDir, 'cache'),
    GOBIN: binDir,
    GOFLAGS: '-buildvcs=false',
    // The machine's Go builds it; a newer toolchain is not downloaded behind the drill's back.
    GOTOOLCHAIN: 'local',
  };
  const server = join(binDir, 'server');
  const sqlTool = join(binDir, 'sql');
  const moduleDir = join(goDir, 'mod', 'go.temporal.io', `server@v${version}`);
  if (existsSync(server) && existsSync(sqlTool) && existsSync(moduleDir)) {
    return { version, server, sqlTool, moduleDir, goEnv: env };
  }
  const started = performance.now();
  const packages = ['cmd/server', 'cmd/tools/sql'].map((path) => `go.temporal.io/server/${path}@v${version}`);
  await run('nice', ['-n', '15', 'go', 'install', ...packages], { env, quiet: true });
  return { version, server, sqlTool, moduleDir, builtInMs: performance.now() - started, goEnv: env };
}
