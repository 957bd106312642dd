// The inbox: everything that waits for a person, the longest waiting first, refreshed every few seconds. Cards are
// kept by key across refreshes, so a form half filled in is never wiped by a refresh.
import type { InboxListing } from '../../http/inbox-listing.js';
import { getJson } from './api.js';
import { h, replaceChildren } from './dom.js';
import { inboxCard, refreshTimes } from './inbox-card.js';

const REFRESH_MS = 2_000;

/** Renders the inbox into `root` until `signal` aborts. */
export function inboxView(root: HTMLElement, signal: AbortSignal): void {
  const summary = h('p', { class: 'summary' }, 'Looking for what waits…');
  const list = h('section', { class: 'items' });
  const note = h('p', { class: 'muted' });
  replaceChildren(root, h('h1', {}, 'Waiting for people'), summary, list, note);
  const cards = new Map<string, HTMLElement>();

  const refresh = async () => {
    let listing: InboxListing;
    try {
      listing = await getJson<InboxListing>('/api/inbox', signal);
    } catch (error) {
      if (!signal.aborted) replaceChildren(summary, h('span', { class: 'error' }, `Could not list: ${String(error)}`));
      return;
    }
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
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}
