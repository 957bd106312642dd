import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';

/**
 * The event streams one handler has open, per user and in all: each holds a connection, a buffer and a reader of a
 * run, so a user (or a reconnect loop) cannot open them without bound. A route takes a slot before it does anything
 * a stream would follow (sending a message, deciding), and the stream gives it back when it ends.
 */
export class StreamSlots {
  private open = 0;
  private readonly byUser = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly maxPerUser: number,
  ) {}

  /**
   * A slot for one of `userId`'s streams; the returned function gives it back (once, however often it is called).
   *
   * @throws HttpRefusal `Http.TooManyStreams` (429) when the user or the handler has as many open as allowed.
   */
  take(userId: string): () => void {
    const mine = this.byUser.get(userId) ?? 0;
    if (mine >= this.maxPerUser) {
      throw HttpRefusal.of(
        RefusalCode.HttpTooManyStreams,
        `You have ${mine} streams open (maxStreamsPerUser): close a tab, or wait for one to end.`,
      );
    }
    if (this.open >= this.max) {
      throw HttpRefusal.of(RefusalCode.HttpTooManyStreams, 'The server has as many streams open as it serves: retry.');
    }
    this.open++;
    this.byUser.set(userId, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.open--;
      const left = (this.byUser.get(userId) ?? 1) - 1;
      if (left === 0) this.byUser.delete(userId);
      else this.byUser.set(userId, left);
    };
  }

  /** Streams open now (for tests and metrics). */
  get size(): number {
    return this.open;
  }
}

/**
 * Runs `open` with a slot of `userId`'s: `open` hands the slot's release to the stream it returns, or calls it when it
 * answers without one. A failure gives the slot back.
 */
export async function withStreamSlot(
  slots: StreamSlots,
  userId: string,
  open: (release: () => void) => Promise<Response>,
): Promise<Response> {
  const release = slots.take(userId);
  try {
    return await open(release);
  } catch (error) {
    release();
    throw error;
  }
}
