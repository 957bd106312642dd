// Terminal styling for the CLI and the demo. Pure: whether to colour is decided once, by the caller, from the
// stream and the environment, so formatting functions stay testable as plain strings.

/** A function that styles a piece of text (or returns it unchanged when colour is off). */
export type Paint = (text: string) => string;

/** The handful of styles the CLI uses. */
export interface Style {
  readonly enabled: boolean;
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
  magenta: Paint;
  /** Black on yellow: what a pending approval looks like, so it stands out in a scrolling log. */
  alert: Paint;
}

const ANSI = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
  alert: [[30, 43, 1].join(';'), [39, 49, 22].join(';')],
} as const;

/** Styles with ANSI escapes when `enabled`, or the identity for every style. */
export function createStyle(enabled: boolean): Style {
  const paint =
    ([open, close]: readonly [number | string, number | string]): Paint =>
    (text) =>
      enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: paint(ANSI.bold),
    dim: paint(ANSI.dim),
    red: paint(ANSI.red),
    green: paint(ANSI.green),
    yellow: paint(ANSI.yellow),
    cyan: paint(ANSI.cyan),
    magenta: paint(ANSI.magenta),
    alert: paint(ANSI.alert),
  };
}

/** No colours at all (tests, pipes, files). */
export const PLAIN: Style = createStyle(false);

/**
 * Whether to colour output written to `stream`: `NO_COLOR` (any value) turns colour off, `FORCE_COLOR` (other than
 * `0`) turns it on, otherwise only a terminal gets colours.
 */
export function shouldColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}

/** Removes ANSI styling, e.g. to measure or compare what the user sees. */
export function stripStyle(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
