import { asyncLocalStorage } from '@temporalio/activity';
import {
  defaultPayloadConverter,
  type DataConverter,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
} from '@temporalio/common';
import { getGlobalLogger } from '../logger.js';
import { type PayloadCodecErrorCode, PayloadCodecError } from './payload-codec-error.js';
import { REFUSED_PAYLOAD_KEY, type RefusedPayloadValue } from '../protocol/refused-payload.js';
import { withPayloadCodec } from './with-payload-codec.js';
import { DurableAgentPayloadCodec } from './create-payload-codec.js';

// Refusals that no worker, in any configuration, would decode: the payload itself is broken or hostile. Only these
// may be replaced by a value, because the replacement is recorded in what the workflow did: a payload that another
// worker could decode (a key it has, plaintext it allows) must fail the task instead, so that worker replays it.
const STRUCTURAL: ReadonlySet<PayloadCodecErrorCode> = new Set([
  'Codec.MalformedPayload',
  'Codec.DecompressedTooLarge',
]);

/**
 * The codecs a worker decodes with. When Temporal decodes a workflow task (the run's input, signals, updates,
 * queries) and a payload is structurally refused — corrupt, or a decompression bomb — the workflow receives
 * `{ $durableAgentRefusedPayload: { code, message } }` in its place (see `refusedPayloadOf`) and the refusal is
 * logged. A codec that throws there fails the workflow task, and the server retries it forever, on every replay:
 * one junk signal would hold a run hostage. Everywhere else (activity inputs and results, heartbeats, what
 * activities read through their client) and for every other refusal (unknown key, failed authentication, refused
 * plaintext, a payload from another workflow), decoding throws as usual: those wait for a worker that can read
 * the payload, or fail the activity attempt.
 */
export function workerPayloadCodec(codecs: readonly PayloadCodec[]): PayloadCodec {
  const chain = [...codecs];
  // Temporal decodes with the last codec first.
  const reversed = [...chain].reverse();
  // Our own codecs say synchronously when they would hand payloads back as they are (no keys, plain payloads: every
  // payload of a worker without encryption): those skip the chain's promises, as they would skip its work.
  const ours = chain.every((codec) => codec instanceof DurableAgentPayloadCodec) ? chain : undefined;
  const encodesAsIs = ours?.every((codec) => codec.encodesAsIs()) ?? false;
  const decodeChain = async (payloads: Payload[], context?: SerializationContext): Promise<Payload[]> => {
    for (const codec of reversed) payloads = await codec.decode(payloads, context);
    return payloads;
  };
  return {
    async encode(payloads, context) {
      if (encodesAsIs) return payloads;
      for (const codec of chain) payloads = await codec.encode(payloads, context);
      return payloads;
    },
    async decode(payloads, context) {
      if (ours?.every((codec) => codec.decodesAsIs(payloads))) return payloads;
      // An activity's own client (reading a run's transcript, say) must see a failure, never a stand-in value.
      if (context?.type !== 'workflow' || asyncLocalStorage.getStore() !== undefined) {
        return await decodeChain(payloads, context);
      }
      // Decoded together when none is refused (nearly always); one at a time only to find the refused ones.
      const together = await decodeChain(payloads, context).catch(() => undefined);
      if (together) return together;
      return await Promise.all(
        payloads.map(async (payload) => {
          try {
            const [decoded] = await decodeChain([payload], context);
            return decoded!;
          } catch (err) {
            if (!PayloadCodecError.isInstance(err) || !STRUCTURAL.has(err.code)) throw err;
            getGlobalLogger().warn(
              `Refused a payload sent to workflow '${context.workflowId}' in namespace '${context.namespace}'; ` +
                `the workflow receives { ${REFUSED_PAYLOAD_KEY}: { code, message } } in its place`,
              { code: err.code, message: err.message },
            );
            const value: RefusedPayloadValue = { [REFUSED_PAYLOAD_KEY]: { code: err.code, message: err.message } };
            return defaultPayloadConverter.toPayload(value);
          }
        }),
      );
    },
  };
}

/**
 * The data converter a worker gets: {@link withPayloadCodec}, with its codecs wrapped by
 * {@link workerPayloadCodec}.
 */
export function withWorkerPayloadCodec(
  dataConverter: DataConverter | undefined,
  payloadCodec: PayloadCodec | false | undefined,
  env: Record<string, string | undefined> = process.env,
): DataConverter | undefined {
  const converter = withPayloadCodec(dataConverter, payloadCodec, env);
  const codecs = converter?.payloadCodecs ?? [];
  return codecs.length > 0 ? { ...converter, payloadCodecs: [workerPayloadCodec(codecs)] } : converter;
}
