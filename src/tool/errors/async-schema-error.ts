/**
 * Thrown by `validateSchemaSync` when a schema can only validate asynchronously (async refinements, async
 * Standard Schema validators). Validate with `validateSchema` (or `checkToolCallAsync`) instead.
 */
export class AsyncSchemaError extends Error {
  constructor() {
    super('This schema validates asynchronously; use the asynchronous validation path.');
    this.name = 'AsyncSchemaError';
  }
}
