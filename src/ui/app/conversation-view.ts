// A conversation: the runs of its turns, oldest first, each labelled by its message's first words and linking to its
// own page, and its newest turn streamed live below. New turns show up as the listing refreshes.
import type { UIMessageChunk } from 'ai';
import type { ConversationListing, ConversationRun } from '../../http/inbox-conversation.js';
import { getJson, refused, runHash, runPath } from './api.js';
import { h, replaceChildren } from './dom.js';
import { MessageView } from './message-view.js';
import { jsonEvents } from './sse.js';
import { ago, exact } from './time.js';

const REFRESH_MS = 3_000;

/** Renders conversation `conversationId` into `root` until `signal` aborts. */
export function conversationView(root: HTMLElement, conversationId: string, signal: AbortSignal): void {
  const summary = h('p', { class: 'summary' }, 'Looking for its turns…');
  const turns = h('ol', { class: 'turns' });
  const live = h('section', { class: 'live' });
  replaceChildren(root, h('h1', {}, 'Conversation ', h('code', {}, conversationId)), summary, turns, live);
  let following: string | undefined;
  let stopFollowing: AbortController | undefined;

  const follow = (run: ConversationRun) => {
    const key = `${run.workflowId}\u0000${run.firstRunId}`;
    if (following === key) return;
    following = key;
    stopFollowing?.abort();
    const controller = new AbortController();
    stopFollowing = controller;
    signal.addEventListener('abort', () => controller.abort(), { once: true });
    // The newest turn is read, not answered, here: its own page decides its requests.
    const view = new MessageView();
    replaceChildren(live, h('h2', {}, 'Newest turn'), view.element);
    void (async () => {
      const response = await fetch(runPath(run.workflowId, '/stream', run.firstRunId), { signal: controller.signal });
      if (!response.ok) throw await refused(response);
      for await (const chunk of jsonEvents(response)) view.apply(chunk as UIMessageChunk);
    })().catch((error: unknown) => {
      if (!controller.signal.aborted) live.append(h('p', { class: 'error' }, String(error)));
    });
  };

  const refresh = async () => {
    let listing: ConversationListing;
    try {
      listing = await getJson<ConversationListing>(
        `/api/inbox/conversations/${encodeURIComponent(conversationId)}`,
        signal,
      );
    } catch (error) {
      if (!signal.aborted) replaceChildren(summary, h('span', { class: 'error' }, String(error)));
      return;
    }
    replaceChildren(
      summary,
      listing.runs.length === 0
        ? 'No turns of yours found (runs publish their conversation when their namespace has the search attributes).'
        : `${listing.runs.length} turn${listing.runs.length === 1 ? '' : 's'}${listing.truncated ? ' (the newest)' : ''}.`,
    );
    replaceChildren(
      turns,
      ...listing.runs.map((run, i) =>
        h(
          'li',
          { class: 'turn', 'data-status': run.status },
          h('a', { href: runHash(run.workflowId, run.firstRunId) }, turnLabel(run, i)),
          ` · ${run.agent ?? 'agent'} · ${run.status.toLowerCase()} · started `,
          h('span', { title: exact(run.startTime) }, ago(run.startTime)),
          ...run.waiting.map((kind) => h('span', { class: `badge ${kind}` }, kind)),
        ),
      ),
    );
    const newest = listing.runs.at(-1);
    if (newest) follow(newest);
  };

  void refresh();
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}

/** Words of a turn's message its label shows. */
const LABEL_WORDS = 8;

/** A turn by its first words ("“Book a table for two…”"), or its place when it has no text. */
function turnLabel(run: ConversationRun, index: number): string {
  if (!run.asked) return `Turn ${index + 1}`;
  const words = run.asked.split(' ');
  const head = words.slice(0, LABEL_WORDS).join(' ');
  return `“${head}${words.length > LABEL_WORDS || run.asked.endsWith('…') ? '…' : ''}”`;
}
