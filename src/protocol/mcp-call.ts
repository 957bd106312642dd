// What an MCP tool call exchanges with whoever runs it, as plain types: the tool library describes its execute
// options with them and the MCP client implements them, so neither imports the other.
import type { JsonObject } from './json.js';

/** A server's progress notification during a call. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A server's question to a person (`elicitation/create`, form mode), as plain, bounded, secret-free JSON. */
export interface McpElicitationRequest {
  /** The server that asks. */
  serverName: string;
  /** What to ask. A blank message is replaced by the schema's description or its first field's. */
  message: string;
  /** A flat JSON Schema object of the answer's fields (strings, numbers, booleans, enums). */
  requestedSchema: JsonObject;
  mode: 'form';
}

/** Content of an accepted elicitation: field name to a primitive value or a list of enum strings. */
export type McpElicitationContent = Record<string, string | number | boolean | string[]>;

/** A person's answer: `accept` with content, `decline` (said no), or `cancel` (dismissed, or nobody answered). */
export type McpElicitationAnswer =
  | { action: 'accept'; content: McpElicitationContent }
  | { action: 'decline'; content?: undefined }
  | { action: 'cancel'; content?: undefined };

/** Answers elicitations. `signal` fires when the call that asked is cancelled or the server withdraws the request. */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: { signal: AbortSignal },
) => McpElicitationAnswer | Promise<McpElicitationAnswer>;
