// How long ago something happened, for people ("3 min ago"), with the exact time kept for a tooltip.

const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** `iso` relative to now, e.g. "2 minutes ago"; "just now" under five seconds. */
export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return 'earlier';
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return 'earlier';
  if (Math.abs(ms) < 5_000) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(ms) >= size || unit === 'second') return format.format(Math.round(ms / size), unit);
  }
  return 'earlier';
}

/** The exact local time of `iso`, for a title attribute. */
export function exact(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '';
}
