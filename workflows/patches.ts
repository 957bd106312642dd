import { RUN_PROTOCOL_PATCH } from '../src/protocol/run-protocol.js';

/**
 * The patch ids the agent loop and the conversation pass to `patched()`: one per release that changed the loop in a
 * way that needs versioning, asked once, by `runProtocol()` (workflows/protocol.ts), whose number every branch
 * compares. The ids of v0.2.0 and v0.3.0, which v0.1.0–v0.3.0 histories carry or lack, are in
 * workflows/legacy/patches.ts. See docs/upgrading.md for when a change needs an id (and when a pinned Worker
 * Deployment Version instead) and how ids are retired. Never reuse or rename an id.
 */
export const PATCHES = {
  /**
   * 0.4.0, asked by a run's first execution in its first task: protocol 4. The run has one stream (Workflow
   * Streams' wire protocol, spoken by workflows/run-stream.ts; or Redis, when its worker has a live stream) with its events, tool progress (by per-call token) and, for steps that stream,
   * model deltas published only while someone watches; MCP questions are asked by update and expire in the call's
   * wait; the first model call waits for MCP listings at most the listing budget; answers to calls not known yet are
   * held while a model call is in flight; the run records its final event log in its memo as it ends, publishes the
   * inbox's search attributes when the namespace has them, and checks answers flagged `requireAuthorization`.
   */
  v0_4: RUN_PROTOCOL_PATCH,
} as const;
