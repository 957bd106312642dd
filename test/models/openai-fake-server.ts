import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embedText } from '../../src/models/offline-model.js';

// A real HTTP server speaking the OpenAI wire format (Chat Completions and Embeddings), so tests exercise the
// provider path end to end — `@ai-sdk/openai`, fetch, headers, status codes, aborts — with no network and no key.

/** A tool call the fake model makes. */
export interface FakeToolCall {
  name: string;
  /** Objects are JSON-encoded; a string is sent as the raw `arguments` text (so it can be invalid JSON). */
  arguments: unknown;
  /** Default `call_<request>_<index>`. */
  id?: string;
}

/**
 * How a streamed answer (a request with `stream: true`) is sent: text and tool arguments in SSE chunks of
 * `chunkChars` characters, `chunkDelayMs` apart; `cutAfterChunks` destroys the connection after that many chunks
 * (a provider failing mid-answer); `hangAfterChunks` stops sending and leaves the response open.
 */
export interface FakeStreaming {
  chunkChars?: number;
  chunkDelayMs?: number;
  cutAfterChunks?: number;
  hangAfterChunks?: number;
}

interface FakeAnswer {
  finishReason?: string;
  usage?: FakeUsage;
  delayMs?: number;
  stream?: FakeStreaming;
}

/** One scripted answer of `POST /v1/chat/completions`. */
export type FakeChatReply =
  | ({ text: string; toolCalls?: FakeToolCall[] } & FakeAnswer)
  | ({ toolCalls: FakeToolCall[]; text?: string } & FakeAnswer)
  /** An error response: `status`, OpenAI's `{ error: { message, type, code } }` body, and extra headers. */
  | { status: number; message?: string; headers?: Record<string, string>; delayMs?: number }
  /** Never answer: the request stays open until the client goes away (see {@link RecordedRequest.closed}). */
  | { hang: true };

/** Token counts to report. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A step: a fixed reply or a function of the request. */
export type FakeChatStep = FakeChatReply | ((request: RecordedRequest) => FakeChatReply);

/** A request the server received. */
export interface RecordedRequest {
  /** Zero-based arrival order over all endpoints. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (`undefined` when it was not JSON). */
  body: any;
  /** Set once the connection closed before the server finished its response (the client aborted). */
  closedByClient: boolean;
  /** Resolves when the response is closed, finished or not. */
  closed: Promise<void>;
}

/** Options of {@link startOpenAIFakeServer}. */
export interface OpenAIFakeServerOptions {
  /** Replies of `/v1/chat/completions`, in order. More can be added with `enqueue`. */
  chat?: FakeChatStep[];
  /** Vectors for `/v1/embeddings`. Default: the offline hashed bag-of-words embedding (same as `offline/...`). */
  embed?: (inputs: string[], model: string) => number[][];
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
}

/** A running fake server. */
export interface OpenAIFakeServer {
  /** `http://127.0.0.1:<port>/v1`: pass as `baseURL` / `OPENAI_BASE_URL`. */
  baseURL: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Requests to `/v1/chat/completions`. */
  readonly chatRequests: RecordedRequest[];
  /** Requests to `/v1/embeddings`. */
  readonly embeddingRequests: RecordedRequest[];
  /** Chat requests that found no scripted reply (they were answered with a 500 naming the problem). */
  readonly unscriptedRequests: number;
  /** Adds chat replies to the script. */
  enqueue(...steps: FakeChatStep[]): void;
  /** Resolves when at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Stops the server, dropping any hanging requests. */
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startOpenAIFakeServer(options: OpenAIFakeServerOptions = {}): Promise<OpenAIFakeServer> {
  const script: FakeChatStep[] = [...(options.chat ?? [])];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let chatCount = 0;
  let unscripted = 0;

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
      headers: req.headers,
      body,
      closedByClient: false,
      closed: Promise.resolve(),
    };
    // The response's 'close' (not the request's) is what fires when a client aborts mid-response: an incoming
    // request emits 'close' as soon as its body has been read.
    record.closed = new Promise((resolve) => {
      res.on('close', () => {
        if (!res.writableFinished) record.closedByClient = true;
        resolve();
      });
    });
    requests.push(record);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401, 'Incorrect API key provided.', {}, 'invalid_api_key');
      return;
    }
    if (req.method === 'POST' && record.path === '/v1/chat/completions') {
      await answerChat(record, res, chatCount++);
    } else if (req.method === 'POST' && record.path === '/v1/embeddings') {
      answerEmbeddings(record, res);
    } else {
      sendError(res, 404, `openai-fake-server: no route for ${req.method} ${record.path}`, {}, 'not_found');
    }
  }

  async function answerChat(record: RecordedRequest, res: ServerResponse, chatIndex: number): Promise<void> {
    const step = script.shift();
    if (step === undefined) {
      unscripted++;
      sendError(res, 500, `openai-fake-server: no scripted reply for chat request #${chatIndex + 1}`, {}, 'unscripted');
      return;
    }
    const reply = typeof step === 'function' ? step(record) : step;
    if ('hang' in reply) return; // Left open on purpose; the test aborts it or close() drops it.
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    if ('status' in reply) {
      sendError(res, reply.status, reply.message ?? `HTTP ${reply.status}`, reply.headers ?? {});
      return;
    }

    const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_${chatIndex}_${i}`,
      type: 'function' as const,
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const usage = {
      prompt_tokens: reply.usage?.prompt_tokens ?? 10,
      completion_tokens: reply.usage?.completion_tokens ?? 5,
      total_tokens: (reply.usage?.prompt_tokens ?? 10) + (reply.usage?.completion_tokens ?? 5),
    };
    const id = `chatcmpl-fake-${chatIndex}`;
    const model = typeof record.body?.model === 'string' ? (record.body.model as string) : 'fake-model';
    const created = 1_700_000_000;

    if (record.body?.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // Resolves once the chunk is handed to the socket, so a cut after it still delivers it.
      const send = (data: unknown) =>
        new Promise<void>((resolve) => res.write(`data: ${JSON.stringify(data)}\n\n`, () => resolve()));
      const chunk = (delta: unknown, finish: string | null, extra: object = {}) => ({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      });
      const pacing = reply.stream ?? {};
      const pieces = (text: string): string[] => {
        const size = pacing.chunkChars;
        if (!size || text.length <= size) return [text];
        return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
      };
      const deltas: unknown[] = pieces(reply.text ?? '').map((content, i) =>
        i === 0 ? { role: 'assistant', content } : { content },
      );
      toolCalls.forEach((call, index) =>
        pieces(call.function.arguments).forEach((args, i) =>
          deltas.push({
            tool_calls: [
              i === 0
                ? { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: args } }
                : { index, function: { arguments: args } },
            ],
          }),
        ),
      );
      for (const [sent, delta] of deltas.entries()) {
        if (pacing.cutAfterChunks === sent) {
          res.destroy();
          return;
        }
        if (pacing.hangAfterChunks === sent) return; // left open; the client aborts or close() drops it
        if (sent > 0 && pacing.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, pacing.chunkDelayMs));
        if (res.destroyed) return;
        await send(chunk(delta, null));
      }
      await send(chunk({}, finishReason, { usage }));
      res.end('data: [DONE]\n\n');
      return;
    }

    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.text ?? null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finishReason,
        },
      ],
      usage,
    });
  }

  function answerEmbeddings(record: RecordedRequest, res: ServerResponse): void {
    const input: unknown = record.body?.input;
    const inputs = (Array.isArray(input) ? input : [input]).map((value) =>
      typeof value === 'string' ? value : JSON.stringify(value ?? ''),
    );
    const model = typeof record.body?.model === 'string' ? (record.body.model as string) : 'fake-embedding';
    const vectors = options.embed ? options.embed(inputs, model) : inputs.map((value) => embedText(value, 64));
    sendJson(res, 200, {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model,
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    get embeddingRequests() {
      return requests.filter((r) => r.path === '/v1/embeddings');
    },
    get unscriptedRequests() {
      return unscripted;
    },
    enqueue(...steps) {
      script.push(...steps);
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string>,
  code: string | null = null,
): void {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}
