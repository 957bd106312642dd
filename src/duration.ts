import { msToNumber, type Duration } from '@temporalio/common';

const EXPECTED = `expected a non-negative number of milliseconds, or a string such as '500ms', '30s', '5m', '24h' or '2 days'`;

/**
 * Converts a duration to milliseconds with Temporal's own parser (the `ms` format every Temporal option accepts):
 * a number is taken as ms; a string is a number with an optional unit (`'500ms'`, `'30s'`, `'5m'`, `'24h'`,
 * `'2 days'`). Throws on anything else, so a typo in configuration fails when the agent is defined rather than
 * when a run first waits.
 */
export function durationToMs(value: string | number): number {
  let ms: number;
  try {
    ms = msToNumber((typeof value === 'string' ? value.trim() : value) as Duration);
  } catch {
    throw new Error(`Invalid duration: '${String(value)}' (${EXPECTED})`);
  }
  if (!Number.isFinite(ms) || ms < 0) {
    throw new Error(`Invalid duration: ${typeof value === 'string' ? `'${value}'` : value} (${EXPECTED})`);
  }
  return ms;
}
