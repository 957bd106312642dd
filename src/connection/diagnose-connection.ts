// Works out why a connection failed, after it failed: gRPC clients report "Failed to connect before the deadline"
// or a transport error string, which does not tell a person what to change. A plain TCP connect and a TLS
// handshake with the same settings tell apart "nothing listens", "not TLS", "TLS expected", "untrusted
// certificate", "client certificate wanted" and "credentials refused". Costs nothing on the success path.
import { connect as tcpConnect, isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsConnectionOptions, type TLSSocket } from 'node:tls';
import type { ConnectionSettings } from './connection-options.js';
import type { ConnectOptions } from './to-connect-options.js';

/** What went wrong and what to do about it. */
export interface Diagnosis {
  problem: string;
  advice: string;
}

const PROBE_TIMEOUT_MS = 3_000;
/** The HTTP/2 client preface and an empty SETTINGS frame: what a gRPC client sends first. */
const HTTP2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);
const CERT_ERRORS = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Probes the address with the settings that failed and explains the failure. */
export async function diagnoseConnectFailure(
  settings: ConnectionSettings,
  options: ConnectOptions,
  error: unknown,
): Promise<Diagnosis> {
  if (isAuthFailure(error)) return credentialsRefused(settings, error);
  const target = hostAndPort(settings.address);
  if (!target) {
    return {
      problem: `'${settings.address}' is not a host:port address`,
      advice: 'Set TEMPORAL_ADDRESS (or the address of the profile) to host:port, e.g. localhost:7233.',
    };
  }
  const tcp = await probeTcp(target.host, target.port);
  if (tcp) return tcp;
  const tls = await probeTls(target.host, target.port, options.tls === false ? undefined : options.tls);
  if (options.tls === false) {
    if (tls.kind === 'ok') {
      return {
        problem: `the server speaks TLS, but this connection is plaintext (${settings.tls.why})`,
        advice:
          'Turn TLS on: TEMPORAL_TLS=true (plus TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA), tls in the ' +
          'profile, or the tls option. An API key (TEMPORAL_API_KEY) turns TLS on by itself.',
      };
    }
    return unexplained(error);
  }
  switch (tls.kind) {
    case 'ok':
      if (tls.alpn !== 'h2') {
        return {
          problem: `the server speaks TLS but not HTTP/2 (ALPN ${tls.alpn || 'none'}), so it is not a gRPC frontend`,
          advice: 'Check the port: Temporal serves gRPC on 7233 by default; the Web UI and the HTTP API use others.',
        };
      }
      return unexplained(error);
    case 'not-tls':
      return {
        problem: `the server does not speak TLS (the handshake got "${tls.detail}"), but TLS is on (${settings.tls.why})`,
        advice:
          "Use the server's TLS endpoint, or turn TLS off for this one: TEMPORAL_TLS=false, tls.disabled = true in " +
          'the profile, or tls: false in code.',
      };
    case 'untrusted':
      return {
        problem: `the server's certificate is not trusted (${tls.detail})`,
        advice: tls.detail.includes('ALTNAME')
          ? 'The certificate is for another name: connect by that name, or set TEMPORAL_TLS_SERVER_NAME (tls.server_name in the profile).'
          : 'Trust the CA that signed it: TEMPORAL_TLS_SERVER_CA_CERT_PATH (tls.server_ca_cert_path in the profile, or ' +
            'serverRootCACertificate in code). Check the server name too (TEMPORAL_TLS_SERVER_NAME).',
      };
    case 'refused':
      return {
        problem: `the server ended the TLS handshake (${tls.detail})`,
        advice: hasClientCert(options)
          ? 'It did not accept the client certificate: check that a CA the server trusts signed it and that it has not expired.'
          : 'It wants a client certificate (mutual TLS): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH ' +
            '(client_cert_path and client_key_path in the profile).',
      };
    default:
      return unexplained(error);
  }
}

function credentialsRefused(settings: ConnectionSettings, error: unknown): Diagnosis {
  return {
    problem: `the server refused the credentials (${shortMessage(error)})`,
    advice:
      settings.apiKey !== undefined
        ? 'Check the API key (TEMPORAL_API_KEY, api_key in the profile, or apiKey in code): it is sent as ' +
          "'authorization: Bearer <key>' and must be valid for this namespace."
        : 'The server wants credentials: an API key (TEMPORAL_API_KEY) or a client certificate ' +
          '(TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH).',
  };
}

function unexplained(error: unknown): Diagnosis {
  return {
    problem: shortMessage(error),
    advice: 'Check the address, the TLS settings and the credentials above, and that the server is healthy.',
  };
}

/**
 * Whether the address certainly has nobody to talk to (connection refused, or a host name that does not
 * resolve): a client can fail at once instead of retrying until its connect timeout, as the worker does.
 */
export async function nothingListens(address: string): Promise<boolean> {
  const target = hostAndPort(address);
  if (!target) return false;
  const diagnosis = await probeTcp(target.host, target.port);
  return diagnosis !== undefined && !diagnosis.problem.startsWith('nothing answered');
}

/** A TCP-level failure explained, or undefined when something accepts connections there. */
async function probeTcp(host: string, port: number): Promise<Diagnosis | undefined> {
  const failure = await new Promise<NodeJS.ErrnoException | 'timeout' | undefined>((resolve) => {
    const socket = tcpConnect({ host, port });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve(error);
    });
  });
  if (failure === undefined) return undefined;
  const start =
    'Start a Temporal server there (for development: npx durable-agent dev, which also hosts your agents), or point TEMPORAL_ADDRESS or the ' +
    "profile's address at one.";
  if (failure === 'timeout') {
    return {
      problem: `nothing answered at ${host}:${port} within ${PROBE_TIMEOUT_MS / 1000} s`,
      advice: `Check the address and any firewall in between. ${start}`,
    };
  }
  if (failure.code === 'ECONNREFUSED') {
    return { problem: `nothing is listening on ${host}:${port} (connection refused)`, advice: start };
  }
  if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') {
    return {
      problem: `the host name '${host}' does not resolve (${failure.code})`,
      advice: 'Check the spelling of the address (TEMPORAL_ADDRESS or the profile).',
    };
  }
  return { problem: `cannot open a connection to ${host}:${port} (${failure.code ?? failure.message})`, advice: start };
}

type TlsProbe =
  | { kind: 'ok'; alpn: string }
  | { kind: 'not-tls'; detail: string }
  | { kind: 'untrusted'; detail: string }
  | { kind: 'refused'; detail: string }
  | { kind: 'other'; detail: string };

/**
 * A TLS handshake with the given settings (`undefined`: any certificate, only "is this TLS?" is asked), then an
 * HTTP/2 preface: with TLS 1.3 a server that refuses the client certificate says so only after the handshake.
 */
function probeTls(host: string, port: number, tls: ConnectOptions['tls'] | undefined): Promise<TlsProbe> {
  const config = typeof tls === 'object' ? tls : {};
  const serverName = config.serverNameOverride ?? (isIP(host) ? undefined : host);
  const options: TlsConnectionOptions = {
    host,
    port,
    ALPNProtocols: ['h2'],
    rejectUnauthorized: tls !== undefined,
    ...(serverName ? { servername: serverName } : {}),
    ...(config.serverRootCACertificate ? { ca: Buffer.from(config.serverRootCACertificate) } : {}),
    ...(config.clientCertPair
      ? { cert: Buffer.from(config.clientCertPair.crt), key: Buffer.from(config.clientCertPair.key) }
      : {}),
  };
  return new Promise<TlsProbe>((resolve) => {
    let settled = false;
    const socket: TLSSocket = tlsConnect(options);
    const done = (result: TlsProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done({ kind: 'other', detail: 'no TLS answer in time' }), PROBE_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      const alpn = socket.alpnProtocol || '';
      socket.write(HTTP2_PREFACE);
      socket.once('data', () => done({ kind: 'ok', alpn }));
      socket.once('end', () => done({ kind: 'ok', alpn }));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(classifyTlsError(error)));
  });
}

function classifyTlsError(error: NodeJS.ErrnoException): TlsProbe {
  const code = error.code ?? '';
  // OpenSSL's messages carry their source file and line; the reason is the part a person can read.
  const reason = /SSL routines:[^:]*:([^:]+)/.exec(error.message)?.[1] ?? error.message.trim();
  const detail = code ? `${code}: ${reason}` : reason;
  if (CERT_ERRORS.has(code)) return { kind: 'untrusted', detail };
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|RECORD_LAYER_FAILURE|HTTP_REQUEST/.test(code)) {
    return { kind: 'not-tls', detail: reason };
  }
  if (/ALERT_(CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN)/.test(code)) {
    return { kind: 'refused', detail };
  }
  return { kind: 'other', detail };
}

function hasClientCert(options: ConnectOptions): boolean {
  return typeof options.tls === 'object' && options.tls.clientCertPair !== undefined;
}

function isAuthFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 16 || code === 7) return true;
    const message = current instanceof Error ? current.message : '';
    if (/valid authentication credentials|Unauthenticated|PermissionDenied|Request unauthorized/i.test(message)) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The most specific message in the cause chain (gRPC `details` first). */
function shortMessage(error: unknown): string {
  let best = error instanceof Error ? error.message : String(error);
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const details = (current as { details?: unknown }).details;
    if (typeof details === 'string' && details) best = details;
    current = (current as { cause?: unknown }).cause;
  }
  return best.replace(/\.$/, '');
}

/** `host` and `port` of `host:port`, `[v6]:port` or `host` (Temporal's default port, as the SDK does). */
function hostAndPort(address: string): { host: string; port: number } | undefined {
  const match =
    /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(address.replace(/^[a-z]+:\/\//, ''));
  if (!match) return undefined;
  const port = Number(match[2] ?? 7233);
  return port > 0 && port < 65536 ? { host: match[1]!, port } : undefined;
}
