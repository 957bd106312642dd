import type { AuthorizeDecisionInput, AuthorizeDecisionResult } from '../src/protocol/index.js';
import { INPUT_LIMITS } from '../src/protocol/index.js';
import { getGlobalLogger } from '../src/logger.js';
import { type ActivityDependencies, requireAgent } from '../src/runtime/dependencies.js';

/**
 * Asks the agent's `authorizeDecision` hook whether a decision may settle its request (a local activity: it runs in
 * the workflow task that received the decision). Fails closed: a hook that throws refuses the decision. A worker
 * whose agent no longer has the hook lets the decision through unverified, as the deploy intends.
 */
export function createAuthorizeDecision(deps: ActivityDependencies) {
  return async function authorizeDecision(input: AuthorizeDecisionInput): Promise<AuthorizeDecisionResult> {
    const hook = requireAgent(deps, input.agentName).approval?.authorizeDecision;
    if (!hook) return { allowed: true };
    try {
      const verdict = await hook(input.decision, input.request, input.run);
      if (typeof verdict === 'boolean')
        return verdict ? { allowed: true } : { allowed: false, reason: 'Not authorized.' };
      return {
        allowed: verdict.allowed === true,
        ...(verdict.allowed !== true
          ? { reason: bounded(verdict.reason ?? 'Not authorized.', INPUT_LIMITS.reasonChars) }
          : {}),
        ...(verdict.allowed === true && typeof verdict.approver === 'string'
          ? { approver: bounded(verdict.approver, INPUT_LIMITS.approverChars) }
          : {}),
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      getGlobalLogger().warn('authorizeDecision threw; the decision is refused', { error: message });
      return { allowed: false, reason: bounded(`authorizeDecision failed: ${message}`, INPUT_LIMITS.reasonChars) };
    }
  };
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
