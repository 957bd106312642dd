// Moved to src/history/transcript-from-history.ts (the client and the conversation activity both read it). This
// re-export keeps src/client/conversation.ts compiling until its import is pointed there; then delete this file.
export type { HistoryEvent } from '../../history/transcript-from-history.js';
