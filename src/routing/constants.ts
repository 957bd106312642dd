// Names, defaults and bounds of tool routing. Import-free and pure, so workflow code may import it too.

/** Name of the built-in search tool. */
export const SEARCH_TOOLS_NAME = 'searchTools';

/** Name of the built-in call tool. */
export const CALL_TOOL_NAME = 'callTool';

/** The two names routing reserves, sorted. */
export const ROUTING_TOOL_NAMES: readonly string[] = [CALL_TOOL_NAME, SEARCH_TOOLS_NAME];

/** Tools a search returns when neither the call, the config nor the embedding config says (VoltAgent's default). */
export const DEFAULT_TOOL_SEARCH_TOP_K = 1;

/**
 * Most tools one search may return. A model asking for more gets this many: every returned tool carries its
 * schemas, which all go into the transcript and workflow history.
 */
export const MAX_TOOL_SEARCH_TOP_K = 20;

/** Longest search query, in characters. The query is model output; longer ones are refused with a clear error. */
export const MAX_TOOL_SEARCH_QUERY_LENGTH = 1_000;

/** Longest tool name `callTool` accepts (model output). */
export const MAX_TOOL_NAME_LENGTH = 256;

/** Budget of one `searchTools` result, in UTF-8 bytes of its JSON; schemas that do not fit are left out. */
export const DEFAULT_MAX_SEARCH_RESULT_BYTES = 64 * 1024;

/** Longest tool text sent to an embedding model, in UTF-8 bytes (MCP servers may send huge descriptions). */
export const MAX_TOOL_TEXT_BYTES = 8 * 1024;

/** Texts per embedding call when neither the provider nor the config sets a limit. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 256;

/** Upper bound of any embedding batch (OpenAI's own per-request limit). */
export const MAX_EMBEDDING_BATCH_SIZE = 2048;

/** Default byte budget of a worker's embedding cache (vectors and keys): 64 MiB, about 40,000 384-d vectors. */
export const DEFAULT_EMBEDDING_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Share of the lexical (BM25+) score in the hybrid ranking used with an embedding model; the cosine similarity gets
 * the rest, so the embedding leads and the words mostly break near-ties. Measured on the labelled set in
 * test/fixtures/routing with all-MiniLM-L6-v2 (docs/tool-routing.md has the table): 0.2 won the tuning half and
 * held up on the held-out half, but lost top-1 hits on the fresh requests written afterwards, where incidental words
 * ("take", "week") lifted the wrong tools; 0.1 beat cosine alone at recall@3 on the requests not tuned on, for all
 * four small models we tried (by one or two requests). (Weaviate's default for the same fusion is 0.25.)
 */
export const DEFAULT_LEXICAL_WEIGHT = 0.1;
