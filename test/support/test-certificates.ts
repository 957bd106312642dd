// A private certificate authority for TLS tests: a CA, a server certificate it signed for localhost and
// 127.0.0.1, and a client certificate it signed (for mutual TLS). Written to a temporary directory too, because
// Temporal's environment configuration takes certificates by path as well as inline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** A certificate and its private key, as PEM text and as files. */
export interface CertificateFiles {
  cert: string;
  key: string;
  certPath: string;
  keyPath: string;
}

/** What {@link createTestCertificates} returns. */
export interface TestCertificates {
  /** The CA that signed the others: what a client must trust (`serverCACert`). */
  ca: CertificateFiles;
  /** For the server: `localhost` and `127.0.0.1`. */
  server: CertificateFiles;
  /** For a client presenting a certificate (mutual TLS), common name `durable-agent-test-client`. */
  client: CertificateFiles;
  /** A CA nobody used: trusting it instead of `ca` must fail the handshake. */
  otherCa: CertificateFiles;
  dir: string;
  /** Deletes the directory. */
  remove(): void;
}

const COMMON = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;
const CA_EXTENSIONS = [
  { name: 'basicConstraints', cA: true, critical: true },
  { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
] as const;

/** Generates a fresh CA and the certificates it signs (EC P-256, valid from a minute ago for a day). */
export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-tls-'));
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 24 * 3600_000);
  const dates = { notBeforeDate, notAfterDate };
  const save = (name: string, pems: { cert: string; private: string }): CertificateFiles => {
    const certPath = join(dir, `${name}.crt`);
    const keyPath = join(dir, `${name}.key`);
    writeFileSync(certPath, pems.cert);
    writeFileSync(keyPath, pems.private, { mode: 0o600 });
    return { cert: pems.cert, key: pems.private, certPath, keyPath };
  };

  const caPems = await generate([{ name: 'commonName', value: 'durable-agent test CA' }], {
    ...COMMON,
    ...dates,
    extensions: [...CA_EXTENSIONS],
  });
  const ca = save('ca', caPems);
  const signedBy = { key: ca.key, cert: ca.cert };
  const server = save(
    'server',
    await generate([{ name: 'commonName', value: 'localhost' }], {
      ...COMMON,
      ...dates,
      ca: signedBy,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    }),
  );
  const client = save(
    'client',
    await generate([{ name: 'commonName', value: 'durable-agent-test-client' }], {
      ...COMMON,
      ...dates,
      ca: signedBy,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    }),
  );
  const otherCa = save(
    'other-ca',
    await generate([{ name: 'commonName', value: 'some other CA' }], {
      ...COMMON,
      ...dates,
      extensions: [...CA_EXTENSIONS],
    }),
  );
  return { ca, server, client, otherCa, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
