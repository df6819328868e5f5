// What the cabinet link has handled (link.ts): messages by kind, the backlog in hand, and the lag as a histogram.

/** Upper bounds (ms) of the lag histogram's buckets (the last bucket is everything above). */
const LAG_BOUNDS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * What the link has handled, for an operator and `npm run bench:scale`: messages by kind, how many are being
 * handled now (the process's event backlog in memory; the inbox holds the stored ones), and the lag from the
 * cabinet's event time to the event handled (stored and processed; a heartbeat reconciled), as a histogram of
 * fixed buckets (bounded memory however long the process runs).
 */
export class LinkStats {
  messages = 0;
  heartbeats = 0;
  events = 0;
  inFlight = 0;
  maxInFlight = 0;
  private lags = new Uint32Array(LAG_BOUNDS.length + 1);
  private maxLag = 0;

  lag(ms: number) {
    const v = Math.max(0, ms);
    let i = 0;
    while (i < LAG_BOUNDS.length && v > LAG_BOUNDS[i]!) i++;
    this.lags[i]!++;
    if (v > this.maxLag) this.maxLag = v;
  }

  /** The counts since the last `take`, then starts a new window. */
  take() {
    const n = this.lags.reduce((a, b) => a + b, 0);
    const pct = (p: number) => {
      let seen = 0;
      for (let i = 0; i < this.lags.length; i++) {
        seen += this.lags[i]!;
        if (seen >= Math.ceil(p * n)) return LAG_BOUNDS[i] ?? Infinity;
      }
      return 0;
    };
    const out = {
      messages: this.messages,
      heartbeats: this.heartbeats,
      events: this.events,
      inFlight: this.inFlight,
      maxInFlight: this.maxInFlight,
      lag: { n, p50: n ? pct(0.5) : 0, p99: n ? pct(0.99) : 0, max: this.maxLag },
    };
    this.messages = this.heartbeats = this.events = 0;
    this.maxInFlight = this.inFlight;
    this.lags = new Uint32Array(LAG_BOUNDS.length + 1);
    this.maxLag = 0;
    return out;
  }
}
