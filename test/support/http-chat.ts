// Serves `createAgentHandler` over real HTTP for the web tests, and reads its answers as `useChat` does: SSE
// parsed with the AI SDK's own `parseJsonEventStream` and `uiMessageChunkSchema`, messages built by
// `readUIMessageStream`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { toNodeListener } from '../../src/http/index.js';

/** A Node HTTP server on a free local port; `close()` ends it and its open streams. */
export interface TestHttpServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves `handler` (and `extra` routes first, for a test page) on 127.0.0.1. */
export async function serveHandler(
  handler: (request: Request) => Promise<Response>,
  extra?: (request: Request) => Response | undefined,
): Promise<TestHttpServer> {
  const all = async (request: Request) => extra?.(request) ?? (await handler(request));
  const server = createServer(toNodeListener(all));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The chunks of a UI message stream response, each validated by `ai`'s own schema (a failure throws), to its end or
 * until `until` holds.
 */
export async function chunksOf(
  response: Response,
  until?: (chunks: UIMessageChunk[]) => boolean,
): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema });
  const reader = parsed.getReader();
  for (;;) {
    const { done, value: result } = await reader.read();
    if (done) return chunks;
    if (!result.success) throw result.error;
    chunks.push(result.value as UIMessageChunk);
    if (until?.(chunks)) {
      // Stops reading (the connection closes: a page that goes away).
      await reader.cancel();
      return chunks;
    }
  }
}

/** Reads a response's chunks in stages: up to a chunk, then the rest. */
export function chunkReader(response: Response) {
  const reader = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).getReader();
  const read = async (stop?: (chunk: UIMessageChunk) => boolean): Promise<UIMessageChunk[]> => {
    const chunks: UIMessageChunk[] = [];
    for (;;) {
      const { done, value: result } = await reader.read();
      if (done) return chunks;
      if (!result.success) throw result.error;
      chunks.push(result.value as UIMessageChunk);
      if (stop?.(result.value as UIMessageChunk)) return chunks;
    }
  };
  return { until: (stop: (chunk: UIMessageChunk) => boolean) => read(stop), rest: () => read() };
}

/** The assistant message `chunks` build, as `useChat` builds it (continuing `message` if given). */
export async function messageOf(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const built of readUIMessageStream({ stream, ...(message ? { message } : {}), terminateOnError: true }))
    last = built;
  if (!last) throw new Error('the stream built no message');
  return last;
}

/** A user message as `useChat` sends it. */
export function userMessage(text: string, id = 'user-1'): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/**
 * The message with every tool part waiting for approval answered `approved`, as `addToolApprovalResponse` leaves it;
 * `tamper` may change each approval first (a forged or foreign one).
 */
export function answered(
  message: UIMessage,
  approved: boolean,
  tamper?: (approval: Record<string, unknown>) => void,
): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (!('state' in part) || part.state !== 'approval-requested') return part;
      const approval: Record<string, unknown> = { ...part.approval, approved };
      tamper?.(approval);
      return { ...part, state: 'approval-responded', approval };
    }),
  } as UIMessage;
}

/** The text of a message's text parts, in order. */
export function textOf(message: UIMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}
