// Moved to src/runtime/search-attributes-check.ts. This re-export keeps src/cli/ui-command.ts (being edited
// elsewhere) compiling until its import is pointed there; then delete this file.
export { createCommands, missingSearchAttributes } from '../../runtime/search-attributes-check.js';
