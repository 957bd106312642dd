import { condition } from '@temporalio/workflow';

/** Answers held at once, across approvals and tool results: Temporal admits about 10 updates in flight per run. */
export const MAX_HELD_ANSWERS = 4;

/**
 * Holds a person's answer to a call the run does not know yet while a model call is in flight
 * (protocol 4).
 *
 * Why: a person answers what they saw, and what they saw may reach the run after their answer. When a worker that
 * took a step's model result is gone, the next one replays the run, and Temporal hands it the waiting update or
 * signal in the same activation as the model result that asked for the approval (or the client-side result), with
 * the update's validator run first. Judged then, the call is unknown and the answer is refused (an update) or dropped
 * (a signal): the approval is lost and the run waits until its timeout. Held instead, the answer is judged once the
 * model call's result is in, by the same rules as ever; an answer to a call the step did not make is refused then,
 * with the same code. At most {@link MAX_HELD_ANSWERS} are held; past that, unknown calls are refused at once.
 */
export class ModelCallGate {
  private inFlight = false;
  private held = 0;

  /** `enabled`: the run follows protocol 4; runs on earlier protocols judge every answer at once. */
  constructor(readonly enabled = false) {}

  /** A step's `generate` was scheduled. */
  begin(): void {
    this.inFlight = true;
  }

  /**
   * The step's `generate` returned or failed for good. Called where the loop goes on synchronously to open the
   * step's requests (approvals, client-side results) before anything else of the activation runs, so a held answer
   * is judged with them open.
   */
  end(): void {
    this.inFlight = false;
  }

  /** True when an answer to a call the run does not know yet may wait for the model call in flight. */
  mayHold(): boolean {
    return this.enabled && this.inFlight && this.held < MAX_HELD_ANSWERS;
  }

  /** Waits until no model call is in flight. Call only after {@link mayHold} said yes, in the same activation. */
  async hold(): Promise<void> {
    this.held++;
    try {
      await condition(() => !this.inFlight);
    } finally {
      this.held--;
    }
  }
}
