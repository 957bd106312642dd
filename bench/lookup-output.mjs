// The output of the bench's `lookup` tool, shared by every runtime under test (durable-agent, the in-process AI
// SDK loop, and the @temporalio/ai-sdk worker in ./temporal-ai-sdk) so they all record the same bytes. Plain
// JavaScript without dependencies, so the isolated @temporalio/ai-sdk install can load it too.

const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'kilo', 'lima', 'metro', 'nova', 'oscar', 'radio', 'sierra', 'tango'];

/**
 * Deterministic text of exactly `bytes` ASCII characters, different per key. Word salad rather than one repeated
 * letter, so a compressing payload codec cannot make it vanish.
 *
 * @param {string} key
 * @param {number} bytes
 * @returns {string}
 */
export function fillerText(key, bytes) {
  let state = 2166136261;
  for (let i = 0; i < key.length; i++) state = Math.imul(state ^ key.charCodeAt(i), 16777619) >>> 0;
  let text = '';
  while (text.length < bytes) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    text += `${WORDS[state % WORDS.length]} `;
  }
  return text.slice(0, bytes);
}

/**
 * What `lookup({ key, bytes })` returns.
 *
 * @param {{ key: string, bytes: number }} input
 * @returns {{ key: string, data: string }}
 */
export function lookupOutput({ key, bytes }) {
  return { key, data: fillerText(key, bytes) };
}
