/** Deterministic text of exactly `bytes` ASCII characters, different per key. */
export declare function fillerText(key: string, bytes: number): string;
/** What the bench's `lookup({ key, bytes })` tool returns. */
export declare function lookupOutput(input: { key: string; bytes: number }): { key: string; data: string };
