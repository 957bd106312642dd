// The page's calls to its own server: JSON in, JSON out, and every refusal as an error with the server's code.

/** A refused request: the HTTP status and the server's stable code (docs/errors.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** GETs JSON from `path`. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return await answer<T>(await fetch(path, { headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) }));
}

/** POSTs `body` as JSON to `path` and reads the JSON answer. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return await answer<T>(response);
}

/** Throws the server's refusal as an {@link ApiError}. */
export async function refused(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { code?: string; message?: string } }
    | undefined;
  return new ApiError(
    response.status,
    body?.error?.code ?? 'Http.Internal',
    body?.error?.message ?? `The server answered ${response.status}.`,
  );
}

async function answer<T>(response: Response): Promise<T> {
  if (!response.ok) throw await refused(response);
  return (await response.json()) as T;
}

/** The inbox API's path for a run (and what follows), pinned to its first execution when `firstRunId` is given. */
export function runPath(workflowId: string, rest = '', firstRunId?: string): string {
  const query = firstRunId ? `?run=${encodeURIComponent(firstRunId)}` : '';
  return `/api/inbox/runs/${encodeURIComponent(workflowId)}${rest}${query}`;
}

/** The page's address of a run (its view). */
export function runHash(workflowId: string, firstRunId?: string): string {
  return `#/runs/${encodeURIComponent(workflowId)}${firstRunId ? `?run=${encodeURIComponent(firstRunId)}` : ''}`;
}
