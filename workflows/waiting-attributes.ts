import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  SEARCH_ATTRIBUTE_KEYS as KEYS,
  WAITING_KINDS,
  userKey,
  type RunContextData,
  type WaitingKind,
} from '../src/protocol/index.js';
import type { AgentRunState } from './run-state.js';

/**
 * Publishes what the run waits for as search attributes (`SEARCH_ATTRIBUTES`), so an inbox finds every waiting run
 * with one visibility query. Only runs on protocol 4 whose worker found the attributes in the namespace
 * (`AgentDescription.searchAttributes`, recorded) have one: upserting an unregistered attribute fails the workflow task.
 *
 * Every upsert is a history event, so it upserts only on change: the identity once per run (an execution continued
 * as new starts with the attributes the server carried over), and what it waits for when the set of kinds changes —
 * at most two events per stretch of waiting, whatever number of requests it holds.
 */
export class WaitingAttributes {
  private kinds: WaitingKind[];
  private since: Date | undefined;

  constructor(private readonly state: AgentRunState) {
    // What this execution starts with (from the start event: deterministic under replay).
    const current = workflowInfo().typedSearchAttributes;
    this.kinds = (current.get(KEYS.waiting) ?? []).filter((kind): kind is WaitingKind =>
      (WAITING_KINDS as readonly string[]).includes(kind),
    );
    this.since = current.get(KEYS.waitingSince);
  }

  /** Sets the run's agent, user and conversation, unless the execution already has them (carried over). */
  identify(agentName: string, run: RunContextData): void {
    const current = workflowInfo().typedSearchAttributes;
    const pairs: SearchAttributeUpdatePair[] = [];
    if (current.get(KEYS.agent) !== agentName) pairs.push({ key: KEYS.agent, value: agentName });
    // A hash of the user id: search attributes are stored unencrypted (see `SEARCH_ATTRIBUTES`).
    const user = run.userId !== undefined ? userKey(run.userId) : undefined;
    if (user !== undefined && current.get(KEYS.user) !== user) pairs.push({ key: KEYS.user, value: user });
    if (run.conversationId !== undefined && current.get(KEYS.conversation) !== run.conversationId) {
      pairs.push({ key: KEYS.conversation, value: run.conversationId });
    }
    if (pairs.length > 0) upsertSearchAttributes(pairs);
  }

  /**
   * Upserts what the run waits for when it changed since the last upsert. Called after every event (each request and
   * each answer emits one, after the books changed), so the attributes follow the books within the same activation.
   */
  sync(): void {
    const kinds = this.waitingKinds();
    if (kinds.length === this.kinds.length && kinds.every((kind, i) => kind === this.kinds[i])) return;
    // Waiting since: when the run began waiting for people, kept while anything stays pending.
    const since =
      kinds.length === 0 ? undefined : this.kinds.length === 0 || !this.since ? this.state.clock.now() : this.since;
    this.kinds = kinds;
    this.since = since;
    upsertSearchAttributes([
      { key: KEYS.waiting, value: kinds.length > 0 ? kinds : null },
      { key: KEYS.waitingSince, value: since ?? null },
    ]);
  }

  private waitingKinds(): WaitingKind[] {
    const { approvals, elicitations, clientTools } = this.state;
    const waits: Record<WaitingKind, boolean> = {
      approval: approvals.list().length > 0,
      elicitation: elicitations.list().length > 0,
      'client-tool': clientTools.list().length > 0,
    };
    return WAITING_KINDS.filter((kind) => waits[kind]);
  }
}
