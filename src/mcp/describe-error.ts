/**
 * One line describing a thrown value: its message, plus the system error code of its cause when there is one
 * (`fetch failed` alone says nothing; `fetch failed (ECONNREFUSED)` does).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code =
    (error as { code?: unknown }).code ??
    (cause && typeof cause === 'object' ? (cause as { code?: unknown }).code : undefined);
  const text = error.message || error.name;
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/** The system error code of an error or its cause (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, …). */
export function systemErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
