// The workflow-safe barrel: types, constants and pure functions only. Workflow code imports nothing else from
// src/, and nothing here may import worker-side code, Node built-ins or SDK runtime values.
export * from './json.js';
export * from './messages.js';
export * from './descriptor.js';
export * from './activity-io.js';
export * from './events.js';
export * from './run.js';
export * from './constants.js';
export * from './transcript-pages.js';
export * from './bytes.js';
export * from './refused-payload.js';
export * from './elicitation.js';
export * from './elicitation-answer.js';
export * from './refusal-codes.js';
export * from './routing.js';
export * from './refusal-codes.js';
export * from './run-stream.js';
export * from './stream-wire.js';
export * from './final-record.js';
export * from './search-attributes.js';
