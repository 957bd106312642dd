// The inbox page: a header, and one view at a time chosen by the address's hash: the inbox (`#/`), a run
// (`#/runs/<workflowId>[?run=<firstRunId>]`), a conversation's turns (`#/conversations/<id>`), a chat with the page's
// agent (`#/chat/<id>`, `#/chat/new` starts one).
import { h, replaceChildren } from './dom.js';
import { chatView } from './chat-view.js';
import { conversationView } from './conversation-view.js';
import { inboxView } from './inbox-view.js';
import { runView } from './run-view.js';

const app = document.getElementById('app')!;
const user = app.dataset.user ?? '';
const agent = app.dataset.agent;

const main = h('main');
const inboxLink = h('a', { href: '#/' }, 'Inbox');
const chatLink = agent ? h('a', { href: '#/chat/new', id: 'new-chat' }, `Chat with ${agent}`) : null;
replaceChildren(
  app,
  h(
    'header',
    { class: 'top' },
    h('span', { class: 'brand' }, 'durable-agent'),
    h('nav', {}, inboxLink, chatLink),
    h('span', { class: 'who' }, `signed in as ${user}`),
  ),
  main,
);

let current: AbortController | undefined;

function route(): void {
  current?.abort();
  current = new AbortController();
  const [hash = '', query] = location.hash.replace(/^#\/?/, '').split('?');
  const [view, ...rest] = hash.split('/');
  const id = decodeURIComponent(rest.join('/'));
  const params = new URLSearchParams(query);
  inboxLink.classList.toggle('active', view === '' || view === undefined);
  chatLink?.classList.toggle('active', view === 'chat');
  if (view === 'runs' && id) return runView(main, id, params.get('run') ?? undefined, current.signal);
  if (view === 'conversations' && id) return conversationView(main, id, current.signal);
  if (view === 'chat' && agent) {
    if (id === '' || id === 'new') {
      location.replace(`#/chat/c-${crypto.randomUUID().slice(0, 8)}`);
      return;
    }
    return chatView(main, id, agent, current.signal);
  }
  inboxView(main, current.signal);
}

window.addEventListener('hashchange', route);
route();
