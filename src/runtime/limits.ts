/**
 * Bounds on what models and tools hand the runtime, so every Temporal limit (2 MB per payload, 4 MB per gRPC
 * message, 2,000 pending activities per run) is met with a clear outcome instead of a workflow task failing in a
 * loop. Sizes are UTF-8 bytes of the JSON that Temporal stores. docs/limits.md lists each one and what happens at it.
 */
export interface WorkerLimits {
  /** Tool calls of one model response that run; the rest become error results the model reads. Default 128. */
  toolCallsPerStep: number;
  /** Largest model response (one step's assistant message) recorded; larger fails the run once. Default 1.5 MB. */
  modelResponseBytes: number;
  /** Largest tool output recorded; larger becomes an error result naming the tool. Default 1.5 MB. */
  toolOutputBytes: number;
  /** Largest value a streaming tool may yield (it is heartbeated as the checkpoint). Default 1 MB. */
  checkpointBytes: number;
  /** Largest system prompt (instructions, toolkit instructions, retrieved context) recorded. Default 1 MB. */
  systemPromptBytes: number;
}

export const DEFAULT_WORKER_LIMITS: WorkerLimits = {
  toolCallsPerStep: 128,
  modelResponseBytes: 1_500_000,
  toolOutputBytes: 1_500_000,
  checkpointBytes: 1_000_000,
  systemPromptBytes: 1_000_000,
};

/** The defaults with `overrides` applied; each must be a positive integer. */
export function resolveWorkerLimits(overrides: Partial<WorkerLimits> = {}): WorkerLimits {
  const limits = { ...DEFAULT_WORKER_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new TypeError(`limits.${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return limits;
}
