// `npm run demo` with a real model: the same flow through an OpenAI-compatible fake server (chat and embeddings)
// when OPENAI_API_KEY is set, and a model that calls no tool, reported rather than failed. (The offline flow and the
// embedded dev server: demo.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { DEMO_TIMEOUT_MS, inOrder, runDemo } from '../support/demo.js';
import { uniqueTaskQueue } from '../support/temporal.js';

/** The offered tools' names in a recorded chat completions request. */
function offeredTools(body: { tools?: Array<{ function?: { name?: string } }> }): Array<string | undefined> {
  return (body.tools ?? []).map((tool) => tool.function?.name);
}

let fake: OpenAIFakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('npm run demo with a real model', () => {
  it(
    'runs the same flow with a real model (an OpenAI-compatible server) when OPENAI_API_KEY is set',
    async () => {
      fake = await startOpenAIFakeServer({
        apiKey: 'demo-test-key',
        chat: [
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
          {
            toolCalls: [
              {
                name: 'send_email',
                arguments: { to: 'team@example.com', subject: 'Paris weather update', body: 'Light rain, 14 °C.' },
              },
            ],
          },
          { text: 'It is 14 °C with light rain in Paris; I emailed the team.' },
          // The routed run.
          { toolCalls: [{ name: 'searchTools', arguments: { query: 'current local time in a city' } }] },
          { toolCalls: [{ name: 'callTool', arguments: { name: 'get_local_time', args: { city: 'Tokyo' } } }] },
          { text: 'It is evening in Tokyo.' },
          // The conversation's three turns.
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
          { text: 'It is 14 °C with light rain in Paris.' },
          {
            toolCalls: [
              {
                name: 'send_email',
                arguments: { to: 'ana@example.com', subject: 'Paris forecast', body: '14 °C, light rain.' },
              },
            ],
          },
          { text: 'I emailed the forecast to ana@example.com.' },
          { text: 'That forecast was for Paris.' },
        ],
      });
      const { code, output } = await runDemo(uniqueTaskQueue('demo-openai'), {
        OPENAI_API_KEY: 'demo-test-key',
        OPENAI_BASE_URL: fake.baseURL,
      });
      expect(code, output).toBe(0);
      inOrder(output, [
        /Model: openai\/gpt-4o-mini\n/,
        / APPROVAL NEEDED {2}send_email \{"to":"team@example.com"/,
        /Killed worker 1 \(pid \d+\) with SIGKILL/,
        /Worker 2 \(pid \d+\) is polling/,
        /approved send_email by demo-user/,
        /── Final answer\nIt is 14 °C with light rain in Paris; I emailed the team\./,
        /Tool search: openai\/text-embedding-3-small\n/,
        /call searchTools \{"query":"current local time in a city"\}/,
        /✓ searchTools → \{"query":"current local time in a city","selections":\[\{"name":"get_local_time"/,
        /call callTool \{"name":"get_local_time","args":\{"city":"Tokyo"\}\}/,
        /✓ get_local_time → \{"city":"Tokyo","timeZone":"Asia\/Tokyo"/,
        /model says: It is evening in Tokyo\./,
        /The search ran as activities: embedBatch ×1 .* and rankTools ×1/,
        /Workers: {4}2 /,
        /Routed run: concierge — searchTools, callTool → get_local_time /,
      ]);
      inOrder(output.slice(output.indexOf('── Conversation')), [
        /Turn 1: "What's the weather in Paris\?"/,
        /model says: It is 14 °C with light rain in Paris\./,
        /Killed worker \d+ \(pid \d+\) with SIGKILL between turns 1 and 2\./,
        /Turn 2: "Email that forecast to ana@example.com"/,
        / APPROVAL NEEDED {2}send_email \{"to":"ana@example.com"/,
        /approved send_email by demo-user/,
        /model says: I emailed the forecast to ana@example.com\./,
        /Turn 3: "Which city was that forecast for\?"/,
        /model says: That forecast was for Paris\./,
        /Chat: {7}3 turns — 1: get_weather; 2: send_email \(approved\); 3: answer/,
      ]);
      expect(output).not.toContain('could not be shown');
      expect(fake.chatRequests).toHaveLength(11);
      // Turn 3's model saw the earlier turns: turn 1's answer and turn 2's request are in its prompt.
      const thirdTurnPrompt = JSON.stringify(fake.chatRequests[10]!.body);
      expect(thirdTurnPrompt).toContain('It is 14 °C with light rain in Paris.');
      expect(thirdTurnPrompt).toContain('Email that forecast to ana@example.com');
      expect(fake.unscriptedRequests).toBe(0);
      // The routed run's model was offered the two routing tools, not the pool.
      for (const request of fake.chatRequests.slice(3, 6)) {
        expect(offeredTools(request.body)).toEqual(['searchTools', 'callTool']);
      }
      // Embeddings: one embedBatch request with the pool's ten tool texts, then rankTools embeds only the query.
      const embeddings = fake.embeddingRequests.map((request) => request.body as { model: string; input: string[] });
      expect(embeddings.map((body) => body.model)).toEqual(['text-embedding-3-small', 'text-embedding-3-small']);
      expect(embeddings.map((body) => body.input.length)).toEqual([10, 1]);
      expect(embeddings[1]!.input).toEqual(['current local time in a city']);
    },
    DEMO_TIMEOUT_MS,
  );

  it(
    'says so and exits 0 when a real model does not call the tools',
    async () => {
      fake = await startOpenAIFakeServer({
        chat: [
          { text: 'I cannot check the weather, sorry.' },
          { text: 'I cannot tell the time, sorry.' },
          // The conversation's three turns.
          { text: 'I cannot check the weather, sorry.' },
          { text: 'I cannot send email, sorry.' },
          { text: 'I do not know.' },
        ],
      });
      const { code, output } = await runDemo(uniqueTaskQueue('demo-no-tools'), {
        OPENAI_API_KEY: 'demo-test-key',
        OPENAI_BASE_URL: fake.baseURL,
      });
      expect(code, output).toBe(0);
      inOrder(output, [
        /model says: I cannot check the weather, sorry\./,
        /The model did not call get_weather, so the approval and the worker crash could not be shown\./,
        /── Final answer\nI cannot check the weather, sorry\./,
        /model says: I cannot tell the time, sorry\./,
        /The model did not search for a tool, so tool routing could not be shown in full\./,
        /model says: I do not know\./,
        /The model did not give get_weather in turn 1, send_email \(the tool that needs approval\) in turn 2, "Paris" in the answer of turn 3, so part of the conversation could not be shown\./,
        /Workers: {4}1\n/,
        /Routed run: concierge — no tool calls \(activities: generate ×1\)/,
        /Chat: {7}3 turns — 1: answer; 2: answer; 3: answer/,
      ]);
      // No approval, so no crash while one waits (the conversation's worker is still killed between turns).
      expect(output).not.toMatch(/with SIGKILL while/);
      expect(fake.chatRequests).toHaveLength(5);
      expect(offeredTools(fake.chatRequests[1]!.body)).toEqual(['searchTools', 'callTool']);
      // Nothing searched, nothing embedded.
      expect(fake.embeddingRequests).toHaveLength(0);
    },
    DEMO_TIMEOUT_MS,
  );
});
