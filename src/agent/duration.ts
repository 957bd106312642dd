const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * Converts a duration to milliseconds: a number is taken as ms; a string is a number with an optional unit
 * (`'500ms'`, `'30s'`, `'5m'`, `'24h'`, `'2 days'`). Throws on anything else, so a typo in configuration fails
 * when the agent is defined rather than when a run first waits.
 */
export function durationToMs(value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
    throw new Error(`Invalid duration: ${value} (expected a non-negative number of milliseconds)`);
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = match?.[2]?.toLowerCase() || 'ms';
  const factor = UNIT_MS[unit];
  if (!match || factor === undefined) {
    throw new Error(`Invalid duration: '${value}' (expected e.g. '500ms', '30s', '5m', '24h' or '2d')`);
  }
  return Number(match[1]) * factor;
}
