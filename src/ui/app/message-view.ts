// Renders an assistant message from UI message stream chunks (the AI SDK's `UIMessageChunk`, as the handlers send
// them) as they arrive: text and reasoning grow in place, tool calls show their state, a step that starts over is
// removed, and approvals and MCP questions get their buttons and forms. Each part keeps its element, so a form being
// filled in survives the chunks that follow.
import type { UIMessageChunk } from 'ai';
import { h, pretty, replaceChildren } from './dom.js';
import { schemaForm } from './schema-form.js';

/** How the page answers what a message asks (the run view through the inbox, the chat through the chat route). */
export interface MessageActions {
  approve(
    request: { toolCallId: string; approvalId: string; token?: string; toolName: string },
    approved: boolean,
    reason?: string,
  ): Promise<void>;
  answer(
    question: { id: string; token?: string },
    reply: { action: 'accept' | 'decline' | 'cancel'; content?: unknown },
  ): Promise<void>;
  /** Why this page's user cannot answer a request of this kind (its controls are then disabled), if so. */
  refusal?(kind: 'approval' | 'elicitation'): string | undefined;
}

interface ToolPart {
  element: HTMLElement;
  state: HTMLElement;
  detail: HTMLElement;
  output: HTMLElement;
  actions: HTMLElement;
  toolName: string;
  input: string;
}

/** One assistant message on the page. */
export class MessageView {
  readonly element = h('div', { class: 'message assistant' }, h('div', { class: 'role' }, 'assistant'));
  /** The offset the server said the message's copy ends at (a chat turn that waits for the page). */
  offset: number | undefined;
  /** How the stream ended: `finish`, `error`, `abort`; undefined while it runs. */
  ended: 'finish' | 'error' | 'abort' | undefined;
  private readonly texts = new Map<string, HTMLElement>();
  private readonly tools = new Map<string, ToolPart>();
  private readonly questions = new Map<string, HTMLElement>();
  /** The elements the current step added (a `reset-step` removes them). */
  private step: HTMLElement[] = [];

  constructor(private readonly actions?: MessageActions) {}

  /** Applies one chunk. */
  apply(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'start-step':
        this.step = [];
        break;
      case 'reset-step':
        for (const element of this.step) element.remove();
        this.step = [];
        break;
      case 'text-start':
      case 'reasoning-start':
        this.text(chunk.id, chunk.type === 'reasoning-start');
        break;
      case 'text-delta':
      case 'reasoning-delta':
        this.text(chunk.id, chunk.type === 'reasoning-delta').append(chunk.delta);
        break;
      case 'tool-input-start':
        this.tool(chunk.toolCallId, chunk.toolName, 'input-streaming');
        break;
      case 'tool-input-delta': {
        const part = this.tools.get(chunk.toolCallId);
        if (part) {
          part.input += chunk.inputTextDelta;
          replaceChildren(part.detail, label('Input'), part.input);
        }
        break;
      }
      case 'tool-input-available': {
        const part = this.tool(chunk.toolCallId, chunk.toolName, 'input-available');
        replaceChildren(part.detail, label('Input'), h('pre', { class: 'args' }, pretty(chunk.input)));
        break;
      }
      case 'tool-approval-request':
        this.approvalRequested(chunk.toolCallId, chunk.approvalId, (chunk as { signature?: string }).signature);
        break;
      case 'tool-approval-response':
        for (const part of this.tools.values()) {
          if (part.element.dataset.approval !== chunk.approvalId) continue;
          this.setState(part, chunk.approved ? 'approval-responded' : 'output-denied');
          replaceChildren(
            part.actions,
            chunk.approved ? 'Approved.' : `Denied${chunk.reason ? `: ${chunk.reason}` : '.'}`,
          );
        }
        break;
      case 'tool-output-available': {
        const part = this.tools.get(chunk.toolCallId);
        if (!part) break;
        // A streaming tool's yields replace each other; the final output replaces the last one.
        this.setState(part, chunk.preliminary ? 'output-streaming' : 'output-available');
        replaceChildren(
          part.output,
          label(chunk.preliminary ? 'Output so far' : 'Output'),
          h('pre', { class: 'args' }, pretty(chunk.output)),
        );
        break;
      }
      case 'tool-output-error': {
        const part = this.tools.get(chunk.toolCallId);
        if (part) {
          this.setState(part, 'output-error');
          replaceChildren(part.output, label('Error'), h('div', { class: 'error' }, chunk.errorText));
        }
        break;
      }
      case 'tool-output-denied': {
        const part = this.tools.get(chunk.toolCallId);
        if (part) this.setState(part, 'output-denied');
        break;
      }
      case 'finish':
        this.ended = 'finish';
        this.offset = offsetOf(chunk.messageMetadata);
        break;
      case 'error':
        this.ended = 'error';
        this.element.append(h('div', { class: 'error' }, chunk.errorText));
        break;
      case 'abort':
        this.ended = 'abort';
        this.element.append(h('div', { class: 'muted' }, 'Stopped.'));
        break;
      default:
        if (chunk.type === 'data-elicitation') this.question(chunk.id ?? '', chunk.data as QuestionData);
        break;
    }
  }

  private add(element: HTMLElement): void {
    this.element.append(element);
    this.step.push(element);
  }

  private text(id: string, reasoning: boolean): HTMLElement {
    let element = this.texts.get(id);
    if (!element) {
      element = h('div', { class: reasoning ? 'text reasoning muted' : 'text' });
      this.texts.set(id, element);
      this.add(element);
    }
    return element;
  }

  private tool(toolCallId: string, toolName: string, state: string): ToolPart {
    let part = this.tools.get(toolCallId);
    if (!part) {
      const stateElement = h('span', { class: 'state' });
      const detail = h('div', { class: 'detail' });
      const output = h('div', { class: 'output' });
      const actions = h('div', { class: 'actions' });
      const element = h(
        'div',
        { class: 'tool', 'data-tool': toolName },
        h('span', { class: 'name' }, toolName),
        stateElement,
        detail,
        output,
        actions,
      );
      part = { element, state: stateElement, detail, output, actions, toolName, input: '' };
      this.tools.set(toolCallId, part);
      this.add(element);
    }
    this.setState(part, state);
    return part;
  }

  private setState(part: ToolPart, state: string): void {
    part.element.dataset.state = state;
    replaceChildren(part.state, state.replace(/-/g, ' '));
  }

  private approvalRequested(toolCallId: string, approvalId: string, token: string | undefined): void {
    const part = this.tools.get(toolCallId) ?? this.tool(toolCallId, 'tool', 'input-available');
    part.element.dataset.approval = approvalId;
    this.setState(part, 'approval-requested');
    const actions = this.actions;
    if (!actions) return;
    const error = h('span', { class: 'error' });
    const reason = h('input', {
      type: 'text',
      class: 'reason',
      placeholder: 'Reason (optional)',
      'aria-label': 'Reason',
    });
    const decide = async (approved: boolean) => {
      part.actions.querySelectorAll('button').forEach((button) => (button.disabled = true));
      try {
        const text = reason.value.trim();
        await actions.approve(
          { toolCallId, approvalId, toolName: part.toolName, ...(token ? { token } : {}) },
          approved,
          ...(text ? [text] : []),
        );
      } catch (failure) {
        part.actions.querySelectorAll('button').forEach((button) => (button.disabled = false));
        replaceChildren(error, String(failure instanceof Error ? failure.message : failure));
      }
    };
    replaceChildren(
      part.actions,
      h('button', { class: 'primary approve', onclick: () => void decide(true) }, 'Approve'),
      h('button', { class: 'danger deny', onclick: () => void decide(false) }, 'Deny'),
      reason,
      error,
    );
    refuse(part.actions, actions.refusal?.('approval'));
  }

  private question(id: string, data: QuestionData): void {
    let element = this.questions.get(id);
    if (!element) {
      element = h('div', { class: 'tool question', 'data-question': id });
      this.questions.set(id, element);
      this.add(element);
    }
    element.dataset.state = data.status;
    if (data.status !== 'pending' || !this.actions) {
      replaceChildren(
        element,
        h('span', { class: 'name' }, `${data.serverName} asked`),
        ` ${data.message} `,
        h('span', { class: 'state' }, data.status),
      );
      return;
    }
    const { form, read } = schemaForm(data.requestedSchema);
    const error = h('span', { class: 'error' });
    const actions = this.actions;
    const reply = async (action: 'accept' | 'decline' | 'cancel') => {
      const entered = action === 'accept' ? read() : { content: undefined };
      if ('problem' in entered) {
        replaceChildren(error, entered.problem);
        return;
      }
      try {
        await actions.answer(
          { id, ...(data.token ? { token: data.token } : {}) },
          { action, ...(entered.content !== undefined ? { content: entered.content } : {}) },
        );
      } catch (failure) {
        replaceChildren(error, String(failure instanceof Error ? failure.message : failure));
      }
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void reply('accept');
    });
    replaceChildren(
      element,
      h('span', { class: 'name' }, `${data.serverName} asks`),
      h('p', { class: 'question' }, data.message),
      form,
      h(
        'div',
        { class: 'actions' },
        h('button', { class: 'primary submit', onclick: () => void reply('accept') }, 'Send answer'),
        h('button', { class: 'decline', onclick: () => void reply('decline') }, 'Decline'),
        error,
      ),
    );
    refuse(element, actions.refusal?.('elicitation'));
  }
}

/** A small caption over a box (a tool's input, its output). */
function label(text: string): HTMLElement {
  return h('div', { class: 'box-label' }, text);
}

/** Disables the controls in `element` and says why, when this page's user cannot use them. */
function refuse(element: HTMLElement, why: string | undefined): void {
  if (why === undefined) return;
  element.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select, textarea').forEach((c) => {
    c.disabled = true;
    c.title = why;
  });
  element.append(h('p', { class: 'not-yours muted' }, why));
}

interface QuestionData {
  message: string;
  serverName: string;
  requestedSchema: unknown;
  token?: string;
  status: 'pending' | 'accept' | 'decline' | 'cancel';
}

function offsetOf(metadata: unknown): number | undefined {
  const offset = (metadata as { durableAgent?: { offset?: unknown } } | undefined)?.durableAgent?.offset;
  return typeof offset === 'number' ? offset : undefined;
}
