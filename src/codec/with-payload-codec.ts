import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { payloadCodecFromEnv } from './payload-codec-from-env.js';
import { PayloadCodecError } from './payload-codec-error.js';

/**
 * The data converter a worker or client gets for its `payloadCodec` option: the given codec; `false` for none;
 * when unset, the codecs of an explicit `dataConverter` if it has any, else {@link payloadCodecFromEnv}.
 */
export function withPayloadCodec(
  dataConverter: DataConverter | undefined,
  payloadCodec: PayloadCodec | false | undefined,
  env: Record<string, string | undefined> = process.env,
): DataConverter | undefined {
  if (payloadCodec === false) return dataConverter;
  const explicitCodecs = dataConverter?.payloadCodecs ?? [];
  if (payloadCodec === undefined && explicitCodecs.length > 0) return dataConverter;
  if (payloadCodec !== undefined && explicitCodecs.length > 0) {
    // Two places configuring codecs would leave the order (and so the wire format) to guesswork.
    throw new PayloadCodecError(
      'Codec.InvalidConfig',
      'Both payloadCodec and dataConverter.payloadCodecs are set: configure payload codecs in one place.',
    );
  }
  return { ...dataConverter, payloadCodecs: [payloadCodec ?? payloadCodecFromEnv(env)] };
}
