// The chat box: a durable chat with the page's agent over the chat route (`createAgentHandler`, the protocol `useChat`
// speaks). Each message starts a turn (a run) whose answer streams in; an approval is sent back the way `useChat`
// sends it, checked on the server against the run; a question is answered by its own POST. A reload rejoins the
// running turn. While a turn runs the box says so and its Stop button cancels the turn (the chat stays). What the page
// showed is kept in this tab's session storage.
import type { UIMessageChunk } from 'ai';
import { ApiError, postJson, refused } from './api.js';
import { h, replaceChildren } from './dom.js';
import { MessageView, type MessageActions } from './message-view.js';
import { jsonEvents } from './sse.js';

type Stored = { role: 'user'; text: string } | { role: 'assistant'; chunks: UIMessageChunk[] };

/** Chunks one stored message keeps at most (a longer answer is shown, not kept). */
const MAX_STORED_CHUNKS = 5_000;

/** Renders chat `chatId` with `agent` into `root`. */
export function chatView(root: HTMLElement, chatId: string, agent: string, signal: AbortSignal): void {
  const key = `durable-agent-chat:${chatId}`;
  const stored: Stored[] = JSON.parse(sessionStorage.getItem(key) ?? '[]') as Stored[];
  const save = () => sessionStorage.setItem(key, JSON.stringify(stored));
  const log = h('section', { class: 'messages' });
  const input = h('input', { type: 'text', id: 'chat-input', placeholder: `Message ${agent}…`, autocomplete: 'off' });
  const error = h('p', { class: 'error' });
  const busy = h('span', { class: 'chat-status muted', role: 'status' });
  // Send stays usable while a turn runs: a message sent then is queued as the chat's next turn.
  const send = h('button', { class: 'primary', type: 'submit', id: 'chat-send' }, 'Send');
  const stop = h('button', { type: 'button', id: 'chat-stop', class: 'danger', disabled: true }, 'Stop');
  const form = h('form', { class: 'chat' }, input, send, stop);
  replaceChildren(
    root,
    h('h1', {}, `Chat with ${agent}`),
    h('p', { class: 'summary' }, `Chat ${chatId}`),
    log,
    error,
    form,
    busy,
  );

  /** Streams being read: the box is busy while any is (a turn runs or waits for a person). */
  let reading = 0;
  const setBusy = (delta: number) => {
    reading += delta;
    const active = reading > 0;
    form.classList.toggle('busy', active);
    form.setAttribute('aria-busy', active ? 'true' : 'false');
    stop.disabled = !active;
    replaceChildren(busy, active ? `${agent} is working on it…` : null);
  };
  stop.addEventListener('click', () => {
    stop.disabled = true;
    replaceChildren(busy, 'Stopping…');
    void (async () => {
      // No body: the route reads none.
      const response = await fetch(`/api/chat/${encodeURIComponent(chatId)}/stop`, { method: 'POST', signal });
      if (!response.ok) throw await refused(response);
    })().catch((failure: unknown) => {
      stop.disabled = reading === 0;
      show(failure);
    });
  });

  const userBubble = (text: string) =>
    h('div', { class: 'message user' }, h('div', { class: 'role' }, 'you'), h('div', { class: 'text' }, text));

  /** Streams a response into `view`, keeping its chunks in `record`. */
  const read = async (response: Response, view: MessageView, record: { chunks: UIMessageChunk[] }) => {
    if (!response.ok) throw await refused(response);
    setBusy(+1);
    try {
      for await (const chunk of jsonEvents(response)) {
        view.apply(chunk as UIMessageChunk);
        if (record.chunks.length < MAX_STORED_CHUNKS) record.chunks.push(chunk as UIMessageChunk);
        save();
      }
    } finally {
      setBusy(-1);
    }
  };

  const actionsFor = (getView: () => MessageView, record: { chunks: UIMessageChunk[] }): MessageActions => ({
    approve: async ({ toolCallId, approvalId, token, toolName }, approved, reason) => {
      const view = getView();
      // Sent back as `useChat` does: the assistant message with the tool part answered; the server checks it.
      const response = await fetch('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        signal,
        body: JSON.stringify({
          id: chatId,
          trigger: 'submit-message',
          messages: [
            {
              id: `assistant-${record.chunks.length}`,
              role: 'assistant',
              metadata: { durableAgent: { offset: view.offset ?? 0, status: 'waiting' } },
              parts: [
                {
                  type: `tool-${toolName}`,
                  toolCallId,
                  state: 'approval-responded',
                  approval: {
                    id: approvalId,
                    approved,
                    ...(reason ? { reason } : {}),
                    ...(token ? { signature: token } : {}),
                  },
                },
              ],
            },
          ],
        }),
      });
      void read(response, view, record).catch(show);
    },
    answer: async ({ id, token }, reply) => {
      await postJson(`/api/chat/${encodeURIComponent(chatId)}/elicitations/${encodeURIComponent(id)}`, {
        ...reply,
        token,
      });
    },
  });

  function show(failure: unknown): void {
    if (signal.aborted) return;
    replaceChildren(error, failure instanceof ApiError ? `${failure.message} (${failure.code})` : String(failure));
  }

  const newAssistant = () => {
    const record = { role: 'assistant' as const, chunks: [] as UIMessageChunk[] };
    stored.push(record);
    // The actions find the view they belong to once it exists (an approval arrives after the view is made).
    const holder: { view?: MessageView } = {};
    const view = new MessageView(actionsFor(() => holder.view!, record));
    holder.view = view;
    log.append(view.element);
    return { view, record };
  };

  // What this tab showed before (finished turns), then the running turn, if any, from its start.
  for (const message of stored) {
    if (message.role === 'user') log.append(userBubble(message.text));
    else {
      const view = new MessageView();
      for (const chunk of message.chunks) view.apply(chunk);
      log.append(view.element);
    }
  }
  void (async () => {
    const response = await fetch(`/api/chat/${encodeURIComponent(chatId)}/stream`, { signal });
    if (response.status !== 200) return;
    // The running turn is replayed whole: the copy this tab kept of it goes.
    const last = stored.at(-1);
    if (last?.role === 'assistant') {
      stored.pop();
      log.lastElementChild?.remove();
    }
    const { view, record } = newAssistant();
    await read(response, view, record);
  })().catch(show);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.value = '';
    replaceChildren(error);
    stored.push({ role: 'user', text });
    save();
    log.append(userBubble(text));
    void (async () => {
      const response = await fetch('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        signal,
        body: JSON.stringify({
          id: chatId,
          trigger: 'submit-message',
          messages: [{ id: `user-${stored.length}`, role: 'user', parts: [{ type: 'text', text }] }],
        }),
      });
      const { view, record } = newAssistant();
      await read(response, view, record);
    })().catch(show);
  });
}
