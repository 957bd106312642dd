import { createPayloadCodec, type DurableAgentPayloadCodec, type PayloadCodecOptions } from './create-payload-codec.js';
import { parseEncryptionKey } from './encryption-keys.js';
import { PayloadCodecError } from './payload-codec-error.js';

/** Key id used when `DURABLE_AGENT_ENCRYPTION_KEY` is set without `DURABLE_AGENT_ENCRYPTION_KEY_ID`. */
export const DEFAULT_ENCRYPTION_KEY_ID = 'default';

/**
 * The payload codec configured by environment variables (unset and empty variables count as unset):
 *
 * - `DURABLE_AGENT_ENCRYPTION_KEY`: AES-256 key (base64 or hex of 32 bytes) new payloads are encrypted with.
 * - `DURABLE_AGENT_ENCRYPTION_KEY_ID`: its id, recorded in each payload. Default `default`.
 * - `DURABLE_AGENT_DECRYPTION_KEYS`: `id:key,id:key` — more keys, only for decrypting (older keys after a
 *   rotation, or the next key while it is being rolled out).
 * - `DURABLE_AGENT_COMPRESSION`: `gzip` or `none`. Default `gzip` when a key is set, otherwise `none`.
 * - `DURABLE_AGENT_ALLOW_PLAINTEXT`: `true` or `false` (also `1`/`0`, `yes`/`no`). Default `false`: with
 *   `DURABLE_AGENT_ENCRYPTION_KEY` set, unencrypted payloads are refused. `true` while migrating to encryption.
 *
 * With nothing set, the codec encodes nothing, so workers and clients that have no codec keep reading each
 * other's payloads; it still decompresses gzip payloads and turns an encrypted payload into an error that says
 * which key to configure, instead of Temporal's `Unknown encoding`.
 */
export function payloadCodecFromEnv(env: Record<string, string | undefined> = process.env): DurableAgentPayloadCodec {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const key = read('DURABLE_AGENT_ENCRYPTION_KEY');
  const keyId = read('DURABLE_AGENT_ENCRYPTION_KEY_ID') ?? DEFAULT_ENCRYPTION_KEY_ID;
  const decryptionKeys = read('DURABLE_AGENT_DECRYPTION_KEYS');
  const compression = read('DURABLE_AGENT_COMPRESSION')?.toLowerCase();
  const allowPlaintext = parseBoolean('DURABLE_AGENT_ALLOW_PLAINTEXT', read('DURABLE_AGENT_ALLOW_PLAINTEXT'));

  if (compression !== undefined && compression !== 'gzip' && compression !== 'none') {
    throw new PayloadCodecError(
      'Codec.InvalidConfig',
      `DURABLE_AGENT_COMPRESSION must be 'gzip' or 'none', not '${compression}'.`,
    );
  }
  const options: PayloadCodecOptions = {
    compression: compression ?? (key ? 'gzip' : 'none'),
    ...(allowPlaintext !== undefined ? { allowPlaintext } : {}),
  };
  if (key || decryptionKeys) {
    const keys = decryptionKeys ? parseDecryptionKeys(decryptionKeys) : {};
    if (key) {
      const bytes = parseEncryptionKey(keyId, key);
      const listed = keys[keyId];
      // The same key in both places is normal mid-rotation; two different keys under one id is a mistake.
      if (listed !== undefined && !bytes.equals(parseEncryptionKey(keyId, listed))) {
        throw new PayloadCodecError(
          'Codec.InvalidConfig',
          `Key id '${keyId}' has one key in DURABLE_AGENT_ENCRYPTION_KEY and another in ` +
            `DURABLE_AGENT_DECRYPTION_KEYS: a key id must always mean the same key.`,
          { keyId },
        );
      }
      keys[keyId] = bytes;
    }
    options.encryption = { keys, currentKeyId: key ? keyId : null };
  }
  return createPayloadCodec(options);
}

function parseDecryptionKeys(value: string): Record<string, string | Buffer> {
  const keys: Record<string, string | Buffer> = {};
  for (const entry of value.split(',')) {
    if (entry.trim() === '') continue;
    const separator = entry.indexOf(':');
    const keyId = entry.slice(0, separator).trim();
    if (separator <= 0 || keyId === '') {
      throw new PayloadCodecError(
        'Codec.InvalidConfig',
        'DURABLE_AGENT_DECRYPTION_KEYS must be a comma-separated list of <key id>:<key> entries (keys in base64 ' +
          'or hex).',
      );
    }
    const key = entry.slice(separator + 1).trim();
    const earlier = keys[keyId];
    // `old:K1,old:K2` silently kept only K2, and history written with K1 failed to decode later.
    if (earlier !== undefined && !parseEncryptionKey(keyId, earlier).equals(parseEncryptionKey(keyId, key))) {
      throw new PayloadCodecError(
        'Codec.InvalidConfig',
        `DURABLE_AGENT_DECRYPTION_KEYS lists key id '${keyId}' twice with different keys: a key id must always ` +
          `mean the same key. Give each key its own id.`,
        { keyId },
      );
    }
    keys[keyId] = key;
  }
  return keys;
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new PayloadCodecError('Codec.InvalidConfig', `${name} must be 'true' or 'false', not '${value}'.`);
}
