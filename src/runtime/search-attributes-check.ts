// Whether a namespace has durable-agent's search attributes, asked once per worker and namespace. Runs publish them
// only when it does: upserting an attribute a namespace has not registered fails the workflow task, again and again.
import proto from '@temporalio/proto';
import { getGlobalLogger } from '../logger.js';
import { SEARCH_ATTRIBUTES, type SearchAttributeCliType } from '../protocol/search-attributes.js';

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** The indexed value type of each CLI type name durable-agent uses. */
export const INDEXED_TYPES: Record<SearchAttributeCliType, number> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

/** What the check asks Temporal: the operator service's list of a namespace's custom search attributes. */
export interface SearchAttributeLister {
  listSearchAttributes(request: { namespace: string }): Promise<{
    customAttributes?: Record<string, unknown> | null;
  }>;
}

/** A negative answer is asked again after this long, so attributes created later reach new runs. */
const RECHECK_AFTER_MS = 60_000;
/** The question must not hold up the run's first workflow task for long. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Caches, per namespace, whether every attribute of `SEARCH_ATTRIBUTES` is registered with its type. A namespace
 * that has them stays known (attributes are not removed under running workers); one that lacks them, or a server
 * that refused the question, is asked again after a minute. Says once per namespace what is missing and how to fix it.
 */
export class SearchAttributesCheck {
  private readonly known = new Map<string, { present: boolean; at: number; asking?: Promise<boolean> }>();
  private readonly warned = new Set<string>();

  /** `enabled: false` (the worker option `searchAttributes: false`): runs never publish them. */
  constructor(private readonly enabled = true) {}

  /** Whether runs in `namespace` may publish the attributes; asks `lister` unless the answer is cached. */
  async available(namespace: string, lister: SearchAttributeLister | undefined): Promise<boolean> {
    if (!this.enabled || !lister) return false;
    const entry = this.known.get(namespace);
    if (entry?.asking) return await entry.asking;
    if (entry && (entry.present || Date.now() - entry.at < RECHECK_AFTER_MS)) return entry.present;
    const asking = this.ask(namespace, lister);
    this.known.set(namespace, { present: false, at: Date.now(), asking });
    const present = await asking;
    this.known.set(namespace, { present, at: Date.now() });
    return present;
  }

  private async ask(namespace: string, lister: SearchAttributeLister): Promise<boolean> {
    let registered: Record<string, unknown>;
    try {
      const timeout = new Promise<never>((_, reject) => {
        setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref();
      });
      const answer = await Promise.race([lister.listSearchAttributes({ namespace }), timeout]);
      registered = answer.customAttributes ?? {};
    } catch (error) {
      this.warnOnce(
        namespace,
        `could not list the search attributes of namespace '${namespace}' ` +
          `(${error instanceof Error ? error.message : String(error)}); runs will not publish them`,
      );
      return false;
    }
    const missing = missingSearchAttributes(registered);
    if (missing.length === 0) return true;
    const commands = createCommands(namespace, missing).join('\n  ');
    this.warnOnce(
      namespace,
      `namespace '${namespace}' lacks durable-agent's search attributes ${missing.map((a) => a.name).join(', ')} ` +
        `(or has them with another type), so its runs will not show in inboxes. Create them, then restart the ` +
        `worker or wait a minute:\n  ${commands}`,
    );
    return false;
  }

  private warnOnce(namespace: string, message: string): void {
    if (this.warned.has(namespace)) return;
    this.warned.add(namespace);
    getGlobalLogger().warn(`durable-agent: ${message}`);
  }
}

/** The attributes of `SEARCH_ATTRIBUTES` that `registered` (a namespace's custom attributes by name) lacks or types otherwise. */
export function missingSearchAttributes(
  registered: Record<string, unknown>,
): Array<(typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES]> {
  return Object.values(SEARCH_ATTRIBUTES).filter(({ name, type }) => Number(registered[name]) !== INDEXED_TYPES[type]);
}

/** The Temporal CLI commands that create `attributes` in `namespace`. */
export function createCommands(namespace: string, attributes: ReturnType<typeof missingSearchAttributes>): string[] {
  return attributes.map(
    ({ name, type }) =>
      `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`,
  );
}
