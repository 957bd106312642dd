/** The built-in guidance on using `think` and `analyze`, added to the system prompt by default. */
export const DEFAULT_REASONING_INSTRUCTIONS = `You have two private reasoning tools, \`think\` and \`analyze\`. Use them as a scratchpad: the user does not see them, so be candid and concrete.

Rules:
- Before your first tool call or your first reply, call \`think\` to restate the problem, list what you need and choose an approach.
- After every tool result, call \`analyze\` to judge whether the result is correct and enough, and set \`next_action\`:
  - \`continue\` when more work is needed,
  - \`validate\` when the result should be double-checked before you rely on it,
  - \`final_answer\` when you can answer the user.
- Work in a loop: Think -> [Think -> ...] -> [Tool Calls] -> [Analyze] -> ... -> final_answer.
- Keep each step short and about one thing; give each a clear \`title\`.
- Be honest about uncertainty with \`confidence\` (0 to 1); when it is low, gather more information instead of guessing.
- Once \`analyze\` says \`final_answer\`, reply to the user directly and do not mention these tools.`;

/** The built-in worked examples appended to the instructions unless disabled. */
export const DEFAULT_REASONING_FEW_SHOT_EXAMPLES = `Examples:

Example 1 — a question that needs a lookup
User: What time is it in Tokyo when it is 9:00 in Paris?
1. think(title: "Plan the conversion", thought: "I need both UTC offsets. Paris is UTC+1 or UTC+2 depending on daylight saving; Tokyo is UTC+9 all year. I should check today's offset for Paris.", action: "Call the time-zone tool for Paris", confidence: 0.7)
2. (tool call) get_time_zone(city: "Paris") -> "UTC+2"
3. analyze(title: "Check the offset", result: "Paris is UTC+2 today", analysis: "The gap to Tokyo is 7 hours, so 9:00 in Paris is 16:00 in Tokyo.", next_action: "final_answer", confidence: 0.95)
Reply: It is 16:00 in Tokyo.

Example 2 — a calculation worth checking
User: A shirt costs 40 after a 20% discount. What was the original price?
1. think(title: "Set up the equation", thought: "Discounted price = original x 0.8, so original = 40 / 0.8.", confidence: 0.9)
2. analyze(title: "Verify", result: "original = 50", analysis: "50 x 0.8 = 40, which matches the given price.", next_action: "final_answer", confidence: 1)
Reply: The original price was 50.`;

/** Builds the toolkit instructions: the guidance, optionally followed by examples, inside reasoning tags. */
export function buildReasoningInstructions(addFewShot: boolean, fewShotExamples?: string): string {
  const examples = addFewShot ? `\n${fewShotExamples ?? DEFAULT_REASONING_FEW_SHOT_EXAMPLES}` : '';
  return `<reasoning_instructions>\n${DEFAULT_REASONING_INSTRUCTIONS}${examples}\n</reasoning_instructions>`;
}
