// Progress of a streaming tool, read from the values it yields. Tools report progress in many shapes; these are
// the ones a person would expect to become a bar. Anything else is shown as the value itself.
import type { JsonValue } from '../protocol/index.js';

/** Keys that hold "how far along" next to a `total`. */
const DONE_KEYS = ['completed', 'done', 'current', 'count', 'counted', 'processed', 'step', 'value', 'n'] as const;

/**
 * The fraction done (0..1) a progress value states, or undefined when it states none:
 * - a number in [0, 1] (a fraction) or in (1, 100] (a percentage);
 * - an object with a numeric `progress` (read the same way) or `percent` (0..100);
 * - an object with a numeric `total` > 0 and one of `completed`, `done`, `current`, `count`, `counted`,
 *   `processed`, `step`, `value`, `n`.
 */
export function progressFraction(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number') return fractionOrPercent(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  if (isNumber(value.progress)) return fractionOrPercent(value.progress);
  if (isNumber(value.percent)) return clamp(value.percent / 100);
  const total = value.total;
  if (!isNumber(total) || total <= 0) return undefined;
  for (const key of DONE_KEYS) {
    const done = value[key];
    if (isNumber(done)) return clamp(done / total);
  }
  return undefined;
}

/** A text bar such as `[██████░░░░]  60%`, `width` cells wide. */
export function progressBar(fraction: number, width = 20): string {
  const done = clamp(fraction);
  const filled = Math.round(done * width);
  const percent = `${Math.floor(done * 100)}%`.padStart(4);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${percent}`;
}

function fractionOrPercent(value: number): number | undefined {
  if (value < 0 || value > 100) return undefined;
  return value <= 1 ? value : value / 100;
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
