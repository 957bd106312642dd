// The messages an AG-UI client holds while a response streams: the thread it sent, with the events this response
// wrote applied the way `@ag-ui/client` applies them. AG-UI has no event that takes back text a client was shown,
// so when a retried model call voids what a step streamed, the handler sends a `MESSAGES_SNAPSHOT` of this copy
// without the void messages: the client replaces its messages with those it names and drops the rest.
import { EventType, mergeMetadata, type AGUIEvent, type Message, type ToolCall } from '@ag-ui/core';

type WithMetadata = { metadata?: Record<string, unknown> };
type AssistantMessage = Extract<Message, { role: 'assistant' }>;

/** A copy of a client's thread, kept in step with the events written to it. */
export class AgUiThreadCopy {
  private messages: Message[];

  /** `messages`: the thread as the client sent it (`RunAgentInput.messages`). */
  constructor(messages: readonly Message[]) {
    this.messages = structuredClone([...messages]);
  }

  has(messageId: string): boolean {
    return this.messages.some((message) => message.id === messageId);
  }

  /** The arguments the client holds for a tool call, if it holds the call. */
  toolCallArguments(toolCallId: string): string | undefined {
    return this.toolCall(toolCallId)?.function.arguments;
  }

  /** The thread without the messages `void` names, for a `MESSAGES_SNAPSHOT`. */
  without(voided: ReadonlySet<string>): Message[] {
    return structuredClone(this.messages.filter((message) => !voided.has(message.id)));
  }

  /** Applies one written event (the events the handler writes; others change no message). */
  apply(event: AGUIEvent): void {
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START: {
        let message = this.messages.find((m) => m.id === event.messageId);
        if (!message) {
          message = { id: event.messageId, role: event.role ?? 'assistant', content: '' } as Message;
          this.messages.push(message);
        }
        merge(message, event);
        return;
      }
      case EventType.TEXT_MESSAGE_CONTENT: {
        const message = this.messages.find((m) => m.id === event.messageId) as { content?: unknown } | undefined;
        if (!message) return;
        message.content = `${typeof message.content === 'string' ? message.content : ''}${event.delta}`;
        merge(message, event);
        return;
      }
      case EventType.TEXT_MESSAGE_END: {
        const message = this.messages.find((m) => m.id === event.messageId);
        if (message) merge(message, event);
        return;
      }
      case EventType.TOOL_CALL_START: {
        const existing = this.toolCall(event.toolCallId);
        if (existing) {
          existing.function.name = event.toolCallName;
          merge(existing, event);
          return;
        }
        // The handler sends no parentMessageId: the client makes a message of its own for the call.
        const holder: AssistantMessage = { id: event.toolCallId, role: 'assistant', toolCalls: [] };
        this.messages.push(holder);
        const call: ToolCall = {
          id: event.toolCallId,
          type: 'function',
          function: { name: event.toolCallName, arguments: '' },
        };
        holder.toolCalls!.push(call);
        merge(call, event);
        return;
      }
      case EventType.TOOL_CALL_ARGS: {
        const call = this.toolCall(event.toolCallId);
        if (!call) return;
        call.function.arguments += event.delta;
        merge(call, event);
        return;
      }
      case EventType.TOOL_CALL_END: {
        const call = this.toolCall(event.toolCallId);
        if (call) merge(call, event);
        return;
      }
      case EventType.TOOL_CALL_RESULT: {
        const result = {
          id: event.messageId,
          toolCallId: event.toolCallId,
          role: event.role ?? 'tool',
          content: event.content,
        } as Message;
        merge(result, event);
        const at = this.messages.findIndex(
          (m) => m.role === 'assistant' && m.toolCalls?.some((call) => call.id === event.toolCallId),
        );
        if (at === -1) {
          this.messages.push(result);
          return;
        }
        let index = at + 1;
        while (index < this.messages.length && this.messages[index]!.role === 'tool') index++;
        this.messages.splice(index, 0, result);
        return;
      }
      case EventType.MESSAGES_SNAPSHOT: {
        // The handler's snapshots hold every message it knows of; the client keeps its own activity messages
        // (never sent to the server), so this copy, which never had them, is the snapshot.
        this.messages = structuredClone(event.messages);
        return;
      }
      default:
        return;
    }
  }

  private toolCall(toolCallId: string): ToolCall | undefined {
    for (const message of this.messages) {
      if (message.role !== 'assistant') continue;
      const call = message.toolCalls?.find((c) => c.id === toolCallId);
      if (call) return call;
    }
    return undefined;
  }
}

/** Folds an event's metadata into what it builds, as `@ag-ui/client` does. */
function merge(target: object, event: AGUIEvent): void {
  const incoming = (event as WithMetadata).metadata;
  if (incoming === undefined) return;
  const holder = target as WithMetadata;
  holder.metadata = mergeMetadata(holder.metadata, structuredClone(incoming));
}
