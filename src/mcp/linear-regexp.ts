import { RE2JS } from 're2js';

/** A compiled pattern: only a search test, which is all JSON Schema's `pattern` and `patternProperties` need. */
export interface LinearRegExp {
  test(text: string): boolean;
  /** `/pattern/`: Ajv shares compiled patterns between schemas by this string, so it must name the pattern. */
  toString(): string;
}

/**
 * Compiles a regular expression an MCP server sent (a schema's `pattern` or a `patternProperties` key) with RE2
 * (`re2js`), whose matching time is linear in the input: a pattern like `^(a+)+$` cannot stall the worker's event
 * loop, whatever text it is tested on. RE2 accepts what JSON Schema's patterns use in practice, including escapes
 * that JavaScript's `u` mode refuses (`\-`); it refuses lookaround and backreferences, which need backtracking.
 * Throws an `Error` saying why a pattern cannot be used.
 */
export function linearRegExp(pattern: string): LinearRegExp {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `pattern ${JSON.stringify(pattern.slice(0, 200))} is not supported by the linear-time engine (${why})`,
    );
  }
  return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
}

/** {@link linearRegExp} as an Ajv `code.regExp` engine (`code` names it in generated standalone code). */
export const linearRegExpEngine = Object.assign((pattern: string) => linearRegExp(pattern), {
  code: 'linearRegExp',
});
