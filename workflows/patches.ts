/**
 * Every patch id the agent loop passes to `patched()`. A run whose history predates a patch replays without its
 * marker and keeps the released behaviour for its whole life; new runs take the new one. See docs/upgrading.md for
 * when a change needs a patch and how a patch is retired. Never reuse or rename an id.
 */
export const PATCHES = {} as const;
