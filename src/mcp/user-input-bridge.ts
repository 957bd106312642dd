import type { JsonObject } from '../protocol/json.js';
import { getGlobalLogger } from '../logger.js';
import { CANCEL, fallbackMessage, type McpElicitationAnswer, type McpElicitationHandler } from './elicitation.js';

/** VoltAgent's name for an elicitation handler. */
export type UserInputHandler = McpElicitationHandler;

/**
 * Where a client's elicitation requests go when a call brings no handler of its own (`client.elicitation`).
 * VoltAgent-compatible: `setHandler`, `once`, `removeHandler` (chainable), `hasHandler`, `getHandler`,
 * `processRequest`. No handler, or a handler that throws, answers `{ action: 'cancel' }`.
 */
export class UserInputBridge {
  private handler: UserInputHandler | undefined;

  /** True when a handler is registered. */
  get hasHandler(): boolean {
    return this.handler !== undefined;
  }

  /** The registered handler, if any. */
  getHandler(): UserInputHandler | undefined {
    return this.handler;
  }

  /** Registers the handler for every following request (replacing any other). */
  setHandler(handler: UserInputHandler): this {
    this.handler = handler;
    return this;
  }

  /** Registers a handler for the next request only; it is removed before it runs. */
  once(handler: UserInputHandler): this {
    const wrapper: UserInputHandler = (request, context) => {
      if (this.handler === wrapper) this.handler = undefined;
      return handler(request, context);
    };
    this.handler = wrapper;
    return this;
  }

  /** Removes the handler: requests are cancelled until another is set. */
  removeHandler(): this {
    this.handler = undefined;
    return this;
  }

  /**
   * Answers one request with the handler. A blank message is replaced by the schema's description, else its
   * first field's description or title. No handler → warning and `cancel`; a throwing handler → error log and
   * `cancel`.
   */
  async processRequest(
    params: { message?: string; requestedSchema: JsonObject; serverName?: string },
    context: { signal?: AbortSignal } = {},
  ): Promise<McpElicitationAnswer> {
    const logger = getGlobalLogger();
    const handler = this.handler;
    if (!handler) {
      logger.warn('No user input handler registered, cancelling request');
      return CANCEL;
    }
    const message = params.message?.trim() ? params.message : fallbackMessage(params.requestedSchema);
    try {
      return await handler(
        { serverName: params.serverName ?? '', message, requestedSchema: params.requestedSchema, mode: 'form' },
        { signal: context.signal ?? new AbortController().signal },
      );
    } catch (error) {
      logger.error('Error processing user input request', { error: (error as Error)?.message ?? String(error) });
      return CANCEL;
    }
  }
}
