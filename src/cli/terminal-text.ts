// Text that reaches a terminal from outside (model output, tool names, tool-call ids, error messages, workflow
// ids) is untrusted: an escape sequence in it can recolour, move the cursor, rewrite the screen or set the window
// title, and bidirectional controls can make a command read differently from what runs. These helpers keep such
// text inert. Pure, so the formatters stay plain string functions.
import { stripVTControlCharacters } from 'node:util';

/**
 * C0 and C1 control characters except newline and tab, DEL, and the Unicode bidirectional embeddings, overrides
 * and isolates (the "Trojan Source" characters).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` safe to print: complete ANSI/VT sequences removed (Node's own parser), then every remaining control
 * character. Newlines and tabs stay (model text has paragraphs); everything else a person would read stays.
 */
export function terminalSafe(text: string): string {
  return stripVTControlCharacters(text).replace(UNSAFE, '');
}

/** `value` with every string in it (keys included) made {@link terminalSafe}; other values unchanged. */
export function terminalSafeDeep<T>(value: T): T {
  if (typeof value === 'string') return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => terminalSafeDeep(item)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[terminalSafe(key)] = terminalSafeDeep(item);
    return result as T;
  }
  return value;
}

/** Characters that never need quoting in a POSIX shell word. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `text` on one line: what {@link terminalSafe} keeps, with newlines and tabs as spaces (names, ids). */
export function terminalSafeLine(text: string): string {
  return terminalSafe(text).replace(/[\n\t]/g, ' ');
}

/**
 * One shell word that a POSIX shell (bash, zsh, dash) reads back as exactly `value`: as is when it only has safe
 * characters, else in single quotes. A value with control characters, newlines or tabs (which must never reach
 * the terminal raw, nor break the printed line) becomes a `$'…'` word with `\xHH` / `\uHHHH` escapes, which bash
 * and zsh read back exactly.
 */
export function shellQuote(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  if (terminalSafeLine(value) !== value) {
    const escaped = Array.from(value, (char) => {
      const code = char.codePointAt(0)!;
      if (char === "'" || char === '\\') return `\\${char}`;
      if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
      if (terminalSafe(char) !== char) return `\\u${code.toString(16).padStart(4, '0')}`;
      return char;
    });
    return `$'${escaped.join('')}'`;
  }
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
