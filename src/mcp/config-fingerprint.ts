import { createHash } from 'node:crypto';
import type { MCPServerConfig } from './types.js';

const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;

/**
 * A stable digest of a configuration: equal for equal plain data, different when anything differs. Values that
 * are not plain data (functions, class instances such as a custom fetch or Headers) count by identity. Hashed so
 * the key that names a pool entry never holds the secrets themselves.
 */
export function fingerprint(config: MCPServerConfig): string {
  const canonical = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') {
      return typeof value === 'function' ? `#fn${identity(value)}` : value;
    }
    if (value instanceof URL) return value.href;
    if (Array.isArray(value)) return value.map(canonical);
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return `#obj${identity(value)}`;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(config)))
    .digest('hex');
}

function identity(value: object): number {
  let id = objectIds.get(value);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(value, id);
  }
  return id;
}
