// CPU per model call, in process: the AI SDK's one-step `generateText` (what `callModel` ran before; kept as the
// tests' reference in test/models/generate-text-reference.ts, called here with telemetry off) against the direct
// provider call `callModel` makes now, and the streamed call (`onDelta`); then the same with telemetry observed
// (the AI SDK's OpenTelemetry integration on a tracer whose spans go nowhere): `generateText` against the traced
// call `callModel` makes then (`callModelObserved`, which is `generateText` itself since it stopped rebuilding the
// SDK's telemetry from `ai/internal`: 0.44 ms against 0.38 ms for the rebuilt copy, 30 rounds × 100 calls). The
// scripted model answers at once, so the figures are the cost of the call around the model. Batches of each path
// are interleaved round by round, in alternating order, so load on a shared machine hits all of them alike; medians
// over the rounds.
//
//   npx tsx bench/model-call.ts [rounds=60] [callsPerBatch=100]
import { loadavg } from 'node:os';
import type { ModelMessage } from 'ai';
import { callModel, type CallModelOptions, type FunctionToolSpec } from '../src/models/call-model.js';
import { OpenTelemetry } from '@ai-sdk/otel';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { callModelObserved } from '../src/models/call-model-observed.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../src/models/scripted-model.js';
import { TELEMETRY_OFF } from '../src/models/unobserved-telemetry.js';
import type { ModelCallTelemetry } from '../src/telemetry/model-call-telemetry.js';
import { callViaGenerateText } from '../test/models/generate-text-reference.js';
import { median, quantile, round } from './stats.js';

const rounds = Number(process.argv[2] ?? 60);
const callsPerBatch = Number(process.argv[3] ?? 100);

const lookup: FunctionToolSpec = {
  name: 'lookup',
  description: 'Look a key up',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
};
// A step in the middle of a run: the transcript so far holds two tool round trips.
const messages: ModelMessage[] = [{ role: 'user', content: 'Look up k0 and k1, then say done.' }];
for (const key of ['k0', 'k1']) {
  messages.push(
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: key, toolName: 'lookup', input: { key } }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: key, toolName: 'lookup', output: { type: 'text', value: 'x'.repeat(200) } },
      ],
    },
  );
}
const reply: ScriptedReply = {
  text: 'Next one.',
  toolCalls: [{ toolName: 'lookup', input: { key: 'k2' } }],
  usage: { inputTokens: 100, outputTokens: 10 },
};
// `assistant-turns`: the step is picked by the transcript (two assistant turns so far), which never changes here.
// Thousands of calls per batch: the model keeps no prompts.
const model = new ScriptedLanguageModel({
  steps: [reply, reply, reply],
  stepSelection: 'assistant-turns',
  recordRequests: false,
});
const options: CallModelOptions = { model, system: 'Be brief.', messages, tools: [lookup] };

const traced: ModelCallTelemetry = {
  isEnabled: true,
  functionId: 'durable-agent.generate',
  recordInputs: false,
  recordOutputs: false,
  integrations: new OpenTelemetry({
    tracer: new BasicTracerProvider().getTracer('bench'),
    agentSpanName: 'functionId',
  }),
};

type Path = 'generateText' | 'doGenerate' | 'doStream' | 'generateText traced' | 'traced';
const paths: Record<Path, () => Promise<unknown>> = {
  generateText: () => callViaGenerateText(model, options, TELEMETRY_OFF),
  doGenerate: () => callModel(options),
  doStream: () => callModel({ ...options, onDelta: () => undefined }),
  'generateText traced': () => callViaGenerateText(model, options, traced),
  traced: () => callModelObserved(model, options, traced),
};

async function batch(path: Path): Promise<number> {
  const run = paths[path];
  const start = process.cpuUsage();
  for (let i = 0; i < callsPerBatch; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / callsPerBatch;
}

const names = Object.keys(paths) as Path[];
for (const name of names) await batch(name); // warm-up: JIT, module caches
const perCall = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Path, number[]>;
const loadBefore = loadavg();
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? names : [...names].reverse();
  for (const name of order) perCall[name].push(await batch(name));
}
const loadAfter = loadavg();

console.log(`model call CPU, ${rounds} rounds × ${callsPerBatch} calls per path, interleaved (ms per call)`);
console.log('| path | median | p95 | ÷ generateText (traced rows: ÷ generateText traced) |');
console.log('| --- | --- | --- | --- |');
for (const name of names) {
  const base = median(perCall[name.includes('traced') ? 'generateText traced' : 'generateText']);
  const m = median(perCall[name]);
  console.log(`| ${name} | ${round(m, 4)} | ${round(quantile(perCall[name], 0.95), 4)} | ${round(m / base, 2)} |`);
}
const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
console.log(`load average before ${load(loadBefore)}, after ${load(loadAfter)}; node ${process.version}`);
