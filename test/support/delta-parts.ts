// Model output pieces as tests write them (`{ id, kind, text, toolName? }`), as the `deltas` topic carries them: AI
// SDK stream parts (a `*-delta` per piece, a `tool-input-start` before the piece that names its tool).
import type { DeltaKind, DeltaPart } from '../../src/protocol/index.js';

/** A piece of model output as a test writes it. */
export interface Piece {
  id: string;
  kind: DeltaKind;
  text: string;
  toolName?: string;
}

/** The `deltas` topic's parts for `pieces`, in order. */
export function wireParts(pieces: Piece[]): DeltaPart[] {
  return pieces.flatMap((piece): DeltaPart[] => {
    const { id, kind, text, toolName } = piece;
    if (kind !== 'tool-input') return [{ type: `${kind}-delta`, id, text }];
    const start: DeltaPart[] = toolName !== undefined ? [{ type: 'tool-input-start', id, toolName }] : [];
    return [...start, { type: 'tool-input-delta', id, delta: text }];
  });
}
