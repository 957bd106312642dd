// One run, live: who started it, its agent and conversation, its client-side tool requests, and its messages as
// they are written (the run's UI message stream from its start), with its approvals and questions answerable in place.
import type { UIMessageChunk } from 'ai';
import type { InboxItem } from '../../http/inbox-listing.js';
import { ApiError, getJson, postJson, refused, runPath } from './api.js';
import { h, replaceChildren } from './dom.js';
import { inboxCard, refusalOf } from './inbox-card.js';
import { MessageView } from './message-view.js';
import { jsonEvents } from './sse.js';

interface RunSummary {
  workflowId: string;
  firstRunId: string;
  agent?: string;
  userId?: string;
  conversationId?: string;
  yours: boolean;
  status: string;
  step: number;
  items: InboxItem[];
  asked?: string;
  othersMayDecide?: boolean;
}

/**
 * Renders run `workflowId` (its first execution `firstRunId`, when the address names one) into `root` and follows it
 * until it ends or `signal` aborts.
 */
export function runView(
  root: HTMLElement,
  workflowId: string,
  firstRunId: string | undefined,
  signal: AbortSignal,
): void {
  const meta = h('p', { class: 'summary' }, 'Loading…');
  const asked = h('p', { class: 'asked' });
  const waits = h('p', { class: 'waits' });
  const requests = h('section', { class: 'items' });
  let summary: RunSummary | undefined;
  const view = new MessageView({
    approve: async ({ toolCallId, token }, approved, reason) => {
      await postJson(runPath(workflowId, `/approvals/${encodeURIComponent(toolCallId)}`, firstRunId), {
        approved,
        token,
        ...(reason ? { reason } : {}),
      });
    },
    refusal: (kind) => (summary ? refusalOf({ kind }, summary) : undefined),
    answer: async ({ id, token }, reply) => {
      await postJson(runPath(workflowId, `/elicitations/${encodeURIComponent(id)}`, firstRunId), { ...reply, token });
    },
  });
  replaceChildren(root, h('h1', {}, 'Run ', h('code', {}, workflowId)), meta, asked, waits, requests, view.element);

  const summarize = async () => {
    const run = await getJson<RunSummary>(runPath(workflowId, '', firstRunId), signal);
    summary = run;
    replaceChildren(asked, run.asked ? h('span', { class: 'label' }, 'The user asked: ') : null, run.asked);
    replaceChildren(waits, waitingSentence(run));
    replaceChildren(
      meta,
      `${run.agent ?? 'agent'}${run.userId ? ` for ${run.userId}` : ''}`,
      run.conversationId
        ? h(
            'span',
            {},
            ' · conversation ',
            h('a', { href: `#/conversations/${encodeURIComponent(run.conversationId)}` }, run.conversationId),
          )
        : null,
      ` · step ${run.step} · `,
      h('span', { class: 'run-status', 'data-status': run.status }, run.status),
    );
    // Client-side tools do not show as questions in the stream: their requests are listed here.
    const tools = run.items.filter((item) => item.kind === 'client-tool');
    replaceChildren(
      requests,
      ...tools.map((item) => inboxCard(item, { ...run, waiting: [], available: true }, () => void summarize())),
    );
  };

  const follow = async () => {
    const response = await fetch(runPath(workflowId, '/stream', firstRunId), { signal });
    if (!response.ok) throw await refused(response);
    for await (const chunk of jsonEvents(response)) {
      view.apply(chunk as UIMessageChunk);
      if ((chunk as UIMessageChunk).type === 'tool-approval-request') void summarize().catch(() => undefined);
    }
  };

  void (async () => {
    try {
      await summarize();
      await follow();
      await summarize();
    } catch (error) {
      if (signal.aborted) return;
      meta.append(
        h('div', { class: 'error' }, error instanceof ApiError ? `${error.message} (${error.code})` : String(error)),
      );
    }
  })();
}

const WAITING_FOR = {
  approval: (item: InboxItem) => `a decision on ${item.toolName}`,
  elicitation: (item: InboxItem) =>
    `an answer to ${item.kind === 'elicitation' ? item.serverName : 'a server'}'s question`,
  'client-tool': (item: InboxItem) => `the result of ${item.toolName}`,
} as const;

/** Which step waits, and for what: "Step 2 waits for a decision on send_email." */
function waitingSentence(run: RunSummary): string | null {
  if (run.items.length === 0) return null;
  // A question comes from a tool call of the step in progress (one more than the steps completed).
  const stepped = run.items.find((item) => item.kind !== 'elicitation');
  const step = stepped?.step ?? run.step + 1;
  const what = run.items.map((item) => WAITING_FOR[item.kind](item)).join(', ');
  return `Step ${step} waits for ${what}.`;
}
