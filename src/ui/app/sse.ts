// Reads a server-sent events response whose events are JSON (`data: {…}`): the UI message stream the handlers send.

/** The JSON events of `response`, in order, until the stream ends or sends `[DONE]`. */
export async function* jsonEvents(response: Response): AsyncGenerator<unknown> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data === '') continue;
        if (data === '[DONE]') return;
        yield JSON.parse(data) as unknown;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
