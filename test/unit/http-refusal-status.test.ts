// One mapping from refusal code to HTTP status, used by every route: a refusal the handler makes and the same
// refusal made by the run answer the same status.
import { describe, expect, it } from 'vitest';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { errorResponse } from '../../src/http/agent-handler.js';
import { HttpRefusal } from '../../src/http/http-refusal.js';
import { REFUSAL_STATUS, refusalStatus } from '../../src/http/refusal-status.js';
import { REFUSAL_CODES, RefusalCode } from '../../src/protocol/refusal-codes.js';

const request = new Request('http://localhost/api/chat');
const noLog = () => undefined;

describe('refusal statuses', () => {
  it('gives every refusal code one status, whoever refuses', async () => {
    expect(Object.keys(REFUSAL_STATUS).sort()).toEqual([...REFUSAL_CODES].sort());
    for (const code of Object.values(RefusalCode)) {
      const status = REFUSAL_STATUS[code];
      expect([code, status >= 400 && status < 600]).toEqual([code, true]);
      // Refused by the handler…
      const own = errorResponse(HttpRefusal.of(code, 'refused'), request, noLog);
      // …or by the run, through its update.
      const run = errorResponse(new RunRequestRejectedError('refused', { code }), request, noLog);
      for (const response of [own, run]) {
        expect([code, response.status]).toEqual([code, status]);
        expect(await response.json()).toEqual({ error: { code, message: 'refused' } });
      }
    }
  });

  it('answers what docs/web.md documents', () => {
    // A forged or unknown request (an AG-UI interrupt id, an approval id) is 403; stale ones 409; bad answers 422.
    expect(refusalStatus(RefusalCode.ApprovalUnknownCall)).toBe(403);
    expect(refusalStatus(RefusalCode.ApprovalTokenMismatch)).toBe(403);
    expect(refusalStatus(RefusalCode.ElicitationUnknownQuestion)).toBe(403);
    expect(refusalStatus(RefusalCode.ApprovalAlreadyDecided)).toBe(409);
    expect(refusalStatus(RefusalCode.RunEnded)).toBe(409);
    expect(refusalStatus(RefusalCode.ElicitationInvalidAnswer)).toBe(422);
    expect(refusalStatus(RefusalCode.HttpTooManyStreams)).toBe(429);
    // A code this version does not know (a newer worker's) is a conflict, as `Run.Refused` is.
    expect(refusalStatus('Future.Reason')).toBe(409);
  });
});
