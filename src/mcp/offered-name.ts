import { createHash } from 'node:crypto';

/** What model providers accept as a function name (OpenAI's rule; the strictest of the common providers). */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const HASH_CHARS = 8;

/**
 * The name an MCP tool is offered under: `<server>_<tool>` when that is a name every provider accepts (letters,
 * digits, `_`, `-`, at most 64 characters), else a deterministic stand-in: other characters (`.`, `/`) become `_`,
 * the name is cut to fit, and a hash of the full `<server>_<tool>` is appended
 * (`files_read_file_v2_3f1a9c0e` for `files` / `read.file/v2`). Every worker derives the same name from the
 * recorded listing. Names stay far below the 256 characters `callTool` accepts.
 */
export function offeredToolName(serverName: string, toolName: string): string {
  const plain = `${serverName}_${toolName}`;
  if (PROVIDER_TOOL_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(plain).digest('hex').slice(0, HASH_CHARS);
  const safe = plain.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64 - HASH_CHARS - 1);
  return `${safe}_${hash}`;
}
