// A small `useChat` page for the browser tests, bundled at test time with esbuild: the chat id comes from the
// URL (so a reload rejoins the same chat), the session from a cookie, approvals are sent back automatically, and
// Stop both stops reading and asks the server to cancel the turn.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { createElement as h, useState, type FormEvent, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';

const chatId = new URL(location.href).searchParams.get('chat') ?? 'default';

function part(message: UIMessage, index: number): ReactElement | null {
  const p = message.parts[index]!;
  if (p.type === 'text') return h('span', { key: index, className: 'text' }, p.text);
  if (!p.type.startsWith('tool-') || !('state' in p)) return null;
  return h(
    'div',
    { key: index, className: 'tool', 'data-tool': p.type.slice(5), 'data-state': p.state },
    p.type.slice(5),
  );
}

function App(): ReactElement {
  const { messages, sendMessage, addToolApprovalResponse, status, stop, error } = useChat({
    id: chatId,
    resume: true,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void sendMessage({ text: input });
    setInput('');
  };
  const approvals = messages.flatMap((m) =>
    m.parts.flatMap((p) =>
      'state' in p && p.state === 'approval-requested' && 'approval' in p && p.approval ? [p.approval.id] : [],
    ),
  );
  return h(
    'main',
    null,
    h('div', { id: 'status' }, status),
    error ? h('div', { id: 'error' }, error.message) : null,
    ...messages.map((m) =>
      h('div', { key: m.id, className: 'message', 'data-role': m.role }, ...m.parts.map((_, i) => part(m, i))),
    ),
    ...approvals.map((id) =>
      h(
        'button',
        { key: id, className: 'approve', onClick: () => void addToolApprovalResponse({ id, approved: true }) },
        'Approve',
      ),
    ),
    h(
      'form',
      { onSubmit: submit },
      h('input', {
        id: 'input',
        value: input,
        onChange: (e: { target: { value: string } }) => setInput(e.target.value),
      }),
      h('button', { id: 'send', type: 'submit' }, 'Send'),
    ),
    h(
      'button',
      {
        id: 'stop',
        onClick: () => {
          // stop() only stops reading; the server cancels the durable turn.
          void stop();
          void fetch(`/api/chat/${encodeURIComponent(chatId)}/stop`, { method: 'POST' });
        },
      },
      'Stop',
    ),
  );
}

createRoot(document.getElementById('root')!).render(h(App));
