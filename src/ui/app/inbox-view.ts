// The inbox: everything that waits for a person, the longest waiting first, refreshed every few seconds. Cards are
// kept by key across refreshes, so a form half filled in is never wiped by a refresh. A refresh starts only once the
// last one ended (never two at once), gives up after a deadline (the server then cancels its queries), and comes less
// often while workers are down or the server does not answer, which the page says.
import type { InboxListing } from '../../http/inbox-listing.js';
import { getJson } from './api.js';
import { h, replaceChildren } from './dom.js';
import { inboxCard, refreshTimes } from './inbox-card.js';

const REFRESH_MS = 2_000;
/** The longest wait between two refreshes while workers are down or listings fail. */
const MAX_BACKOFF_MS = 30_000;
/** A listing that takes longer is abandoned (the server's own deadline is shorter). */
const LISTING_TIMEOUT_MS = 25_000;

/** Renders the inbox into `root` until `signal` aborts. */
export function inboxView(root: HTMLElement, signal: AbortSignal): void {
  const summary = h('p', { class: 'summary' }, 'Looking for what waits…');
  const health = h('p', { class: 'health', role: 'status' });
  const list = h('section', { class: 'items' });
  const note = h('p', { class: 'muted' });
  replaceChildren(root, h('h1', {}, 'Waiting for people'), health, summary, list, note);
  const cards = new Map<string, HTMLElement>();
  /** Refreshes in a row that found workers down or failed: each doubles the wait before the next. */
  let troubled = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;

  const waitMs = () => Math.min(MAX_BACKOFF_MS, REFRESH_MS * 2 ** troubled);

  const refresh = async () => {
    if (running || signal.aborted) return;
    running = true;
    clearTimeout(timer);
    try {
      await refreshOnce();
    } finally {
      running = false;
      if (!signal.aborted) timer = setTimeout(() => void refresh(), waitMs());
    }
  };

  const refreshOnce = async () => {
    let listing: InboxListing;
    try {
      listing = await getJson<InboxListing>(
        '/api/inbox',
        AbortSignal.any([signal, AbortSignal.timeout(LISTING_TIMEOUT_MS)]),
      );
    } catch (error) {
      if (signal.aborted) return;
      troubled++;
      const why =
        error instanceof DOMException && error.name === 'TimeoutError'
          ? 'the server did not answer in time'
          : String(error);
      replaceChildren(
        health,
        h('span', { class: 'error' }, `Could not list: ${why}. Trying again in ${Math.round(waitMs() / 1000)} s.`),
      );
      return;
    }
    const down = listing.workersDown;
    troubled = down.length > 0 ? troubled + 1 : 0;
    health.dataset.down = down.length > 0 ? 'true' : 'false';
    replaceChildren(
      health,
      down.length > 0
        ? h(
            'span',
            { class: 'workers-down' },
            `Workers are down: no worker answered for runs on ${down.length === 1 ? 'task queue' : 'task queues'} ` +
              `${down.join(', ')}, so their requests are not shown. Start a worker; ` +
              `the inbox looks again in ${Math.round(waitMs() / 1000)} s.`,
          )
        : null,
    );
    const runs = new Map(listing.runs.map((run) => [run.workflowId, run]));
    const keys = new Set<string>();
    for (const item of listing.items) {
      const key = `${item.workflowId}\u0000${item.kind}\u0000${item.id}`;
      keys.add(key);
      let card = cards.get(key);
      if (!card) {
        card = inboxCard(item, runs.get(item.workflowId), () => void refresh());
        cards.set(key, card);
      }
      list.appendChild(card); // in the listing's order (an existing card moves, keeping what was typed)
    }
    for (const [key, card] of cards) {
      // An answered card stays until the run no longer lists it.
      if (!keys.has(key)) {
        card.remove();
        cards.delete(key);
      }
    }
    refreshTimes(list);
    const waiting = listing.items.length;
    replaceChildren(
      summary,
      waiting === 0
        ? 'Nothing waits for a person right now.'
        : `${waiting} request${waiting === 1 ? '' : 's'} in ${listing.runs.length} run${listing.runs.length === 1 ? '' : 's'}` +
            (listing.reviewer ? ', across every user.' : ', all yours.'),
    );
    const unavailable = listing.runs.filter((run) => !run.available).length;
    replaceChildren(
      note,
      unavailable > 0 ? `${unavailable} more run(s) wait, but no worker answered for their requests.` : null,
      listing.truncated ? ' More runs wait than one page shows.' : null,
    );
  };

  void refresh();
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
}
