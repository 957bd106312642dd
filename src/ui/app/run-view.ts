// One run, live: who started it, its agent and conversation, its client-side tool requests, and its messages as
// they are written (the run's UI message stream from its start), with its approvals and questions answerable in place.
import type { UIMessageChunk } from 'ai';
import type { InboxItem } from '../../http/inbox-listing.js';
import { ApiError, getJson, postJson, refused, runPath } from './api.js';
import { h, replaceChildren } from './dom.js';
import { inboxCard } from './inbox-card.js';
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
  const requests = h('section', { class: 'items' });
  const view = new MessageView({
    approve: async ({ toolCallId, token }, approved) => {
      await postJson(runPath(workflowId, `/approvals/${encodeURIComponent(toolCallId)}`, firstRunId), {
        approved,
        token,
      });
    },
    answer: async ({ id, token }, reply) => {
      await postJson(runPath(workflowId, `/elicitations/${encodeURIComponent(id)}`, firstRunId), { ...reply, token });
    },
  });
  replaceChildren(root, h('h1', {}, 'Run ', h('code', {}, workflowId)), meta, requests, view.element);

  const summarize = async () => {
    const run = await getJson<RunSummary>(runPath(workflowId, '', firstRunId), signal);
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
      ...tools.map((item) =>
        inboxCard(item, { ...run, firstRunId: run.firstRunId, waiting: [], available: true }, () => void summarize()),
      ),
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
