// One request a person can answer, as a card: what is asked (the call and its arguments, the server's question as a
// form, the client-side tool), who asked and since when, and the buttons that answer it through the run.
import type { InboxItem, InboxRun } from '../../http/inbox-listing.js';
import { ApiError, postJson, runHash, runPath } from './api.js';
import { h, pretty, replaceChildren } from './dom.js';
import { schemaForm } from './schema-form.js';
import { ago, exact } from './time.js';

const KIND_LABEL = { approval: 'Approval', elicitation: 'Question', 'client-tool': 'Client tool' } as const;

/** A card for `item` of `run`; `answered` is called once the run took the answer. */
export function inboxCard(item: InboxItem, run: InboxRun | undefined, answered: () => void): HTMLElement {
  const status = h('div', { class: 'status' });
  const since = h(
    'span',
    { title: exact(item.requestedAt), 'data-since': item.requestedAt ?? '' },
    ago(item.requestedAt),
  );
  const who = [run?.agent ?? 'agent', run?.userId ? `for ${run.userId}` : undefined].filter(Boolean).join(' ');
  const refusal = refusalOf(item, run);
  const card = h(
    'article',
    { class: 'card', 'data-kind': item.kind, 'data-run': item.workflowId, 'data-id': item.id },
    h(
      'div',
      { class: 'head' },
      h('span', { class: `badge ${item.kind}` }, KIND_LABEL[item.kind]),
      h('span', { class: 'title' }, item.kind === 'elicitation' ? `${item.serverName} asks` : item.toolName),
      h(
        'span',
        { class: 'meta' },
        `${who} · ${'step' in item ? `step ${item.step} · ` : ''}asked `,
        since,
        ' · ',
        h('a', { href: runHash(item.workflowId, run?.firstRunId || undefined) }, 'open run'),
      ),
    ),
    run?.asked ? h('p', { class: 'asked' }, h('span', { class: 'label' }, 'The user asked: '), run.asked) : null,
    ...body(item, run, async (send) => {
      replaceChildren(status, 'Sending…');
      card.querySelectorAll('button').forEach((button) => (button.disabled = true));
      try {
        const done = await send();
        replaceChildren(status, done);
        card.classList.add('answered');
        answered();
      } catch (error) {
        card.querySelectorAll('button').forEach((button) => (button.disabled = false));
        replaceChildren(status, h('span', { class: 'error' }, messageOf(error)));
      }
    }),
    status,
  );
  if (refusal) {
    // Said before the click, not refused after it: the run would refuse this user's answer.
    card
      .querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select, textarea')
      .forEach((control) => {
        control.disabled = true;
        control.title = refusal;
      });
    card.append(h('p', { class: 'not-yours muted' }, refusal));
  }
  return card;
}

/**
 * Why this page's user cannot answer `item`, when the run would refuse them: it is another user's run and its agent has
 * no `authorizeDecision` hook to let anyone else decide (a client-side tool says so in its body).
 */
export function refusalOf(
  item: Pick<InboxItem, 'kind'>,
  run: Pick<InboxRun, 'yours' | 'othersMayDecide' | 'userId' | 'agent'> | undefined,
): string | undefined {
  if (!run || run.yours || run.othersMayDecide !== false || item.kind === 'client-tool') return undefined;
  const owner = run.userId ?? "the run's user";
  const what = item.kind === 'approval' ? 'decides this call' : 'answers this question';
  const agent = run.agent ? `the ${run.agent} agent` : 'its agent';
  return `Only ${owner} ${what}: ${agent} has no authorizeDecision hook to let others decide.`;
}

/** Refreshes the "asked … ago" of a card. */
export function refreshTimes(root: ParentNode): void {
  root.querySelectorAll<HTMLElement>('[data-since]').forEach((span) => {
    span.textContent = ago(span.dataset.since || undefined);
  });
}

type Act = (send: () => Promise<string>) => Promise<void>;

function body(item: InboxItem, run: InboxRun | undefined, act: Act): HTMLElement[] {
  const path = (kind: string) =>
    runPath(item.workflowId, `/${kind}/${encodeURIComponent(item.id)}`, run?.firstRunId || undefined);
  switch (item.kind) {
    case 'approval': {
      const reason = h('input', {
        type: 'text',
        class: 'reason',
        placeholder: 'Reason (optional)',
        'aria-label': 'Reason',
      });
      const decide = (approved: boolean) =>
        act(async () => {
          const text = reason.value.trim();
          await postJson(path('approvals'), { approved, token: item.token, ...(text ? { reason: text } : {}) });
          return approved ? 'Approved.' : 'Denied.';
        });
      return [
        h('div', { class: 'box-label' }, 'Arguments'),
        h('pre', { class: 'args' }, pretty(item.args)),
        h(
          'div',
          { class: 'actions' },
          h('button', { class: 'primary approve', onclick: () => void decide(true) }, 'Approve'),
          h('button', { class: 'danger deny', onclick: () => void decide(false) }, 'Deny'),
          reason,
        ),
      ];
    }
    case 'elicitation': {
      const { form, read } = schemaForm(item.requestedSchema);
      const reply = (action: 'accept' | 'decline' | 'cancel') =>
        act(async () => {
          const entered = action === 'accept' ? read() : { content: undefined };
          if ('problem' in entered) throw new Error(entered.problem);
          await postJson(path('elicitations'), {
            action,
            token: item.token,
            ...(entered.content !== undefined ? { content: entered.content } : {}),
          });
          return action === 'accept' ? 'Answered.' : action === 'decline' ? 'Declined.' : 'Cancelled.';
        });
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void reply('accept');
      });
      return [
        h('p', { class: 'question' }, item.message),
        form,
        h(
          'div',
          { class: 'actions' },
          h('button', { class: 'primary submit', onclick: () => void reply('accept') }, 'Send answer'),
          h('button', { class: 'decline', onclick: () => void reply('decline') }, 'Decline'),
          h('button', { class: 'cancel', onclick: () => void reply('cancel') }, 'Cancel'),
        ),
      ];
    }
    case 'client-tool': {
      const args = h('pre', { class: 'args' }, pretty(item.args));
      const label = h('div', { class: 'box-label' }, 'Arguments');
      if (run && !run.yours) {
        const only = h('p', { class: 'muted' }, `Only ${run.userId ?? "the run's user"} gives this tool its result.`);
        return [label, args, only];
      }
      const output = h('textarea', { class: 'output', placeholder: 'Result as JSON, e.g. "blue" or {"ok":true}' });
      const submit = () =>
        act(async () => {
          let value: unknown;
          try {
            value = JSON.parse(output.value) as unknown;
          } catch {
            throw new Error('The result must be JSON (a string needs quotes).');
          }
          await postJson(path('tool-results'), { output: value });
          return 'Submitted.';
        });
      return [
        label,
        args,
        output,
        h(
          'div',
          { class: 'actions' },
          h('button', { class: 'primary submit', onclick: () => void submit() }, 'Submit result'),
        ),
      ];
    }
  }
}

function messageOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
