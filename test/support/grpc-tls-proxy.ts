// A TLS-terminating gRPC proxy in front of a plaintext Temporal frontend, the way Temporal Cloud or a load
// balancer with TLS stands in front of a cluster: HTTP/2 over TLS (ALPN h2) with a certificate from a private CA,
// optionally requiring a client certificate (mutual TLS) and an API key (`authorization: Bearer <key>`). Every
// request's metadata is recorded, so a test can see exactly what reached the server.
import {
  connect as http2Connect,
  constants,
  createSecureServer,
  type ClientHttp2Session,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';

/** Options of {@link startGrpcTlsProxy}. */
export interface GrpcTlsProxyOptions {
  /** The plaintext gRPC server behind the proxy, `host:port`. */
  target: string;
  /** The proxy's certificate and key (PEM). */
  cert: string;
  key: string;
  /** With `requireClientCert`: the CA client certificates must be signed by. */
  clientCa?: string;
  /** Refuse the TLS handshake unless the client presents a certificate signed by `clientCa`. */
  requireClientCert?: boolean;
  /** Answer every call without `authorization: Bearer <apiKey>` with UNAUTHENTICATED, as Temporal Cloud does. */
  apiKey?: string;
}

/** One gRPC call as the proxy received it. */
export interface ProxiedRequest {
  /** `/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo` and so on. */
  path: string;
  authorization: string | undefined;
  /** Every header but the HTTP/2 pseudo-headers. */
  metadata: Record<string, string>;
  /** The common name of the client certificate, when one was presented. */
  clientCertCommonName: string | undefined;
  /** Refused by the proxy for a missing or wrong API key. */
  refused: boolean;
}

/** A running proxy. */
export interface GrpcTlsProxy {
  /** `127.0.0.1:port`. */
  readonly address: string;
  readonly port: number;
  /** Every call received so far, in order. */
  readonly requests: ProxiedRequest[];
  /** How many TLS handshakes failed (wrong CA on the client, a plaintext client, no client certificate). */
  readonly failedHandshakes: () => number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);
const UNAUTHENTICATED = 16;

/** Starts the proxy on a free loopback port. */
export async function startGrpcTlsProxy(options: GrpcTlsProxyOptions): Promise<GrpcTlsProxy> {
  const requests: ProxiedRequest[] = [];
  const sessions = new Set<ServerHttp2Session>();
  let failedHandshakes = 0;
  let upstream: ClientHttp2Session | undefined;
  const upstreamSession = (): ClientHttp2Session => {
    if (!upstream || upstream.closed || upstream.destroyed) {
      upstream = http2Connect(`http://${options.target}`);
      // A failed upstream fails the calls that use it (they get their own 'error'); the session error is noise.
      upstream.on('error', () => undefined);
    }
    return upstream;
  };

  const server: Http2SecureServer = createSecureServer({
    cert: options.cert,
    key: options.key,
    ...(options.clientCa ? { ca: options.clientCa } : {}),
    requestCert: options.requireClientCert === true,
    rejectUnauthorized: options.requireClientCert === true,
    allowHTTP1: false,
  });
  server.on('tlsClientError', () => failedHandshakes++);
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => {
    const socket = stream.session?.socket as TLSSocket | undefined;
    const peer = socket?.getPeerCertificate?.();
    const commonName = peer && 'subject' in peer && peer.subject ? peer.subject.CN : undefined;
    const authorization = headerText(headers.authorization);
    const refused = options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`;
    requests.push({
      path: headerText(headers[':path']) ?? '',
      authorization,
      metadata: metadataOf(headers),
      clientCertCommonName: typeof commonName === 'string' ? commonName : undefined,
      refused,
    });
    if (refused) {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': String(UNAUTHENTICATED),
          'grpc-message': 'Request unauthorized: missing or invalid API key',
        },
        { endStream: true },
      );
      return;
    }
    forward(stream, headers, upstreamSession());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    address: `127.0.0.1:${port}`,
    port,
    requests,
    failedHandshakes: () => failedHandshakes,
    close: async () => {
      for (const session of sessions) session.destroy();
      upstream?.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Relays one call: request headers and body up, response headers, body and trailers down; resets both ways. */
function forward(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, upstream: ClientHttp2Session): void {
  const outgoing: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === ':scheme') continue;
    outgoing[name] = value;
  }
  let request;
  try {
    request = upstream.request(outgoing);
  } catch {
    stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  let trailers: OutgoingHttpHeaders = {};
  request.on('response', (responseHeaders, flags) => {
    const response = withoutPseudo(responseHeaders);
    // A trailers-only response (an error with no body) ends the stream in its headers.
    if ((flags & constants.NGHTTP2_FLAG_END_STREAM) !== 0) {
      if (!stream.closed)
        stream.respond({ ':status': responseHeaders[':status'] ?? 200, ...response }, { endStream: true });
      return;
    }
    if (!stream.closed) {
      stream.respond({ ':status': responseHeaders[':status'] ?? 200, ...response }, { waitForTrailers: true });
    }
  });
  request.on('trailers', (received) => {
    trailers = withoutPseudo(received);
  });
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  request.on('data', (chunk: Buffer) => {
    if (!stream.closed && stream.headersSent) stream.write(chunk);
  });
  request.on('end', () => {
    if (!stream.closed && stream.headersSent && !stream.writableEnded) stream.end();
  });
  request.on('error', () => {
    if (!stream.closed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  });
  stream.on('data', (chunk: Buffer) => request.write(chunk));
  stream.on('end', () => request.end());
  // The client gave up (a deadline, a worker shutting down its long polls): stop the upstream call too.
  stream.on('close', () => {
    if (!request.closed) request.close(constants.NGHTTP2_CANCEL);
  });
  stream.on('error', () => undefined);
}

function withoutPseudo(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const result: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':') && value !== undefined && !HOP_BY_HOP.has(name)) result[name] = value;
  }
  return result;
}

function metadataOf(headers: IncomingHttpHeaders): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerText(value);
    if (!name.startsWith(':') && text !== undefined) metadata[name] = text;
  }
  return metadata;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
