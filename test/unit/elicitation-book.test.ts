// What the run refuses when a tool activity asks it a question (the update validator's rules, as pure state): a
// question of a call that is not running, an id not bound to its content, one over the size bound, and the 65th
// waiting question. Each refusal has its code.
import { describe, expect, it } from 'vitest';
import { ELICITATION_LIMITS, elicitationId, type ElicitationRequest } from '../../src/protocol/index.js';
import { ElicitationBook } from '../../workflows/elicitations.js';

function question(toolCallId: string, message: string): ElicitationRequest {
  const base = { toolCallId, toolName: 'srv_ask', serverName: 'srv', message, requestedSchema: { type: 'object' } };
  return { ...base, id: elicitationId(base, 1) };
}

describe('ElicitationBook.askRefusal', () => {
  it('takes a running call’s question bound to its content, and the same question again', () => {
    const book = new ElicitationBook();
    const q = question('c1', 'Proceed?');
    expect(book.askRefusal(q, 'srv_ask')).toBeUndefined();
    book.request(q, new Date(), undefined, 'token');
    expect(book.askRefusal(q, 'srv_ask')).toBeUndefined();
  });

  it('refuses a call that is not running, another tool, and an id of other content', () => {
    const book = new ElicitationBook();
    const q = question('c1', 'Proceed?');
    expect(book.askRefusal(q, undefined)?.code).toBe('Elicitation.NoRunningCall');
    expect(book.askRefusal(q, 'other_tool')?.code).toBe('Elicitation.NoRunningCall');
    const forged = { ...question('c1', 'Transfer $10,000?'), id: q.id };
    expect(book.askRefusal(forged, 'srv_ask')?.code).toBe('Elicitation.InvalidQuestion');
    expect(book.askRefusal({ ...q, id: `${q.id}x` }, 'srv_ask')?.code).toBe('Elicitation.InvalidQuestion');
  });

  it('refuses a question over the size bound, and the 65th waiting question of a run', () => {
    const book = new ElicitationBook();
    const big = question('c1', 'x'.repeat(ELICITATION_LIMITS.questionBytes));
    expect(book.askRefusal(big, 'srv_ask')?.message).toMatch(/bytes; the run keeps questions of at most/);
    for (let i = 0; i < ELICITATION_LIMITS.waitingPerRun; i++) {
      const q = question(`c${i}`, `Question ${i}?`);
      expect(book.askRefusal(q, 'srv_ask')).toBeUndefined();
      book.request(q, new Date(), undefined);
    }
    const refused = book.askRefusal(question('c99', 'One more?'), 'srv_ask');
    expect(refused).toMatchObject({ code: 'Elicitation.TooManyQuestions' });
    expect(refused?.message).toMatch(/64 questions already wait/);
  });

  it('drops the waiting questions of a call that ended', () => {
    const book = new ElicitationBook();
    book.request(question('c1', 'A?'), new Date(), undefined);
    book.request(question('c2', 'B?'), new Date(), undefined);
    expect(book.waitsFor('c1')).toBe(true);
    expect(book.withdrawCall('c1')).toHaveLength(1);
    expect(book.list().map((p) => p.toolCallId)).toEqual(['c2']);
  });
});

describe('ElicitationBook.refusal (answers)', () => {
  it('refuses unknown ids, wrong tokens and answered questions, with codes', () => {
    const book = new ElicitationBook();
    const q = question('c1', 'Proceed?');
    book.request(q, new Date(), undefined, 'secret');
    expect(book.refusal({ id: 'c1:0000000000000000:1', action: 'cancel' })?.code).toBe('Elicitation.UnknownQuestion');
    expect(book.refusal({ id: q.id, action: 'cancel', token: 'guess' })?.code).toBe('Elicitation.TokenMismatch');
    expect(book.refusal({ id: q.id, action: 'cancel' })?.code).toBe('Elicitation.TokenMismatch');
    expect(book.refusal({ id: q.id, action: 'accept', content: { x: 1 }, token: 'secret' })?.code).toBe(
      'Elicitation.InvalidAnswer',
    );
    expect(book.answer({ id: q.id, action: 'cancel', token: 'secret' }, new Date())).toBe(true);
    expect(book.refusal({ id: q.id, action: 'cancel', token: 'secret' })?.code).toBe('Elicitation.AlreadyAnswered');
  });
});

describe('one set of bounds', () => {
  it('keeps every question the MCP layer passes within what the run keeps', async () => {
    const { normalizeElicitationRequest } = await import('../../src/mcp/elicitation.js');
    // The worst case: a message of control characters (6 bytes each in JSON), a schema at its bound, long names.
    const pad = 'd'.repeat(ELICITATION_LIMITS.schemaBytes - 100);
    const normalized = normalizeElicitationRequest('s'.repeat(128), {
      message: '\u0007'.repeat(ELICITATION_LIMITS.messageChars + 10),
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', description: pad } } },
    });
    if (typeof normalized === 'string') throw new Error(normalized);
    const asked = question('t'.repeat(64), normalized.message);
    const worst = { ...asked, toolName: 'n'.repeat(128), serverName: normalized.serverName };
    const bytes = (await import('../../src/protocol/index.js')).elicitationQuestionBytes({
      ...worst,
      requestedSchema: normalized.requestedSchema,
    });
    expect(bytes).toBeLessThanOrEqual(ELICITATION_LIMITS.questionBytes);
  });
});
