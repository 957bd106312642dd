import { setHandler } from '@temporalio/workflow';
import { elicitationQuery, elicitationRequestSignal, toolProgressSignal } from '../../src/protocol/run-messages.js';
import type { AgentRunState } from '../run-state.js';
import { recordSignalledRequest } from './elicitation.js';

/**
 * The messages only v0.1.0–v0.3.0 code sends a run: tool activities' progress signal (a run with a stream replaces
 * it by the stream's `progress` topic and drops the signal), an MCP question by signal, and the activity polling its
 * answer by query. Registered on every protocol, since an activity of a v0.3.0 worker may still run a call of any
 * run during a rolling deploy. Retired with v0.3.0 workers and protocol 2 (docs/upgrading.md).
 */
export function registerLegacyHandlers(state: AgentRunState): void {
  setHandler(toolProgressSignal, (progress) => state.recordProgress(progress));
  setHandler(elicitationRequestSignal, (request) => recordSignalledRequest(state, request));
  setHandler(elicitationQuery, (id) => state.elicitations.status(id));
}
