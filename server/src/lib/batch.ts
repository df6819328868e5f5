// Calls that arrive within a few milliseconds of each other, made as one: the first waits `windowMs` for others (or
// until `max` are waiting), then `run` gets them all and answers each one, in order; its failure rejects them all.
export class Batch<I, O> {
  private waiting: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly windowMs: number,
    private readonly max: number,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.max) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  private flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    if (!batch.length) return;
    this.run(batch.map((w) => w.item)).then(
      (out) => batch.forEach((w, i) => w.resolve(out[i]!)),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  }
}
