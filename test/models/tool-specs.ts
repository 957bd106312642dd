import type { FunctionToolSpec } from '../../src/models/call-model.js';

// Tool schemas shared by the model tests, as the durable runtime would send them (JSON Schema, no execute).

/** `get_weather({ city })`. */
export const weatherTool: FunctionToolSpec = {
  name: 'get_weather',
  description: 'Get the current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
    additionalProperties: false,
  },
};

/** `add({ a, b })`. */
export const addTool: FunctionToolSpec = {
  name: 'add',
  description: 'Add two numbers',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
};

/** `send_email({ to, subject, urgent? })`. */
export const emailTool: FunctionToolSpec = {
  name: 'send_email',
  description: 'Send an email message to a recipient',
  inputSchema: {
    type: 'object',
    properties: {
      to: { type: 'string' },
      subject: { type: 'string' },
      urgent: { type: 'boolean', default: false },
    },
    required: ['to', 'subject'],
  },
};
