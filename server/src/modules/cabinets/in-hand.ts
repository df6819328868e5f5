// The inbox events this process has in hand: stored here and about to be processed here, or being processed. The
// inbox poller leaves them to the link rather than claim them again (a claim that only finds them busy or done).
// Only a hint, never the truth: the claim in the database decides, an event in hand longer than IN_HAND_MS is the
// poller's again, and a process that dies takes its list with it (the poller of any process then picks the event up).

/** An event in hand longer than this (its processing stuck, or stored by a caller that does not process it). */
export const IN_HAND_MS = 60_000;

export class InHand {
  /** Key → when taken (ms). */
  private readonly keys = new Map<string, number>();
  /** Let go of while a poll runs: the poll's list of due events, read before, may still name them. */
  private readonly released = new Set<string>();
  private polls = 0;

  take(key: string, now: Date) {
    this.keys.set(key, now.getTime());
  }

  release(key: string) {
    this.keys.delete(key);
    if (this.polls > 0) this.released.add(key);
  }

  /** Runs a poll: `skip(key)` tells it an event is this process's (in hand, or processed since the poll began). */
  async poll<T>(now: Date, fn: (skip: (key: string) => boolean) => Promise<T>): Promise<T> {
    for (const [key, at] of this.keys) if (now.getTime() - at > IN_HAND_MS) this.keys.delete(key);
    this.polls++;
    try {
      return await fn((key) => this.keys.has(key) || this.released.has(key));
    } finally {
      if (--this.polls === 0) this.released.clear();
    }
  }
}
