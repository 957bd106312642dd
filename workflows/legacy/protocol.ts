import { patched } from '@temporalio/workflow';
import { LEGACY_PATCHES } from './patches.js';

/**
 * The protocol of a history recorded by v0.1.0–v0.3.0 code, read from its first workflow task (only called while
 * that task replays, so `patched()` reports the history's markers and records none): 2 when its first task decided
 * `boundedClientInput` (v0.2.0 and v0.3.0, whose run-wide rules are the same), else 1 (v0.1.0).
 *
 * Retired with the v0.3.0 histories (docs/upgrading.md): then every run carries or decides protocol 4.
 */
export function legacyProtocol(): number {
  return patched(LEGACY_PATCHES.boundedClientInput) ? 2 : 1;
}
