// Heartbeats in batches. Ten thousand cabinets heartbeating every 30 s are 333 heartbeats a second; nearly all
// of them say "still here, same inventory". Reconciling each one on its own (a transaction, locks, five reads
// and a write: about a dozen round trips) made one process fall behind at a few thousand cabinets. Instead the
// heartbeats that arrive within a few milliseconds are checked and recorded together in one statement
// (CabinetsRepository.presenceIfUnchanged); only a cabinet whose inventory differs from what we believe (or that
// could not be checked) gets the full reconcile, exactly as before (docs/cabinet-protocol.md §Inventory).
// A heartbeat is never acknowledged or stored (the next one supersedes it), so batching it loses nothing; the
// cabinet link keeps each cabinet's messages in order, so a later event of the same cabinet waits for it.
import type { Clock } from '../../lib/clock.ts';
import type { CabinetEvent } from './protocol.ts';
import type { CabinetsRepository } from './repository.ts';
import type { OrderRules } from './ports.ts';

type Heartbeat = Extract<CabinetEvent, { type: 'heartbeat' }>;

interface Waiting {
  id: string;
  slots: [number, string][];
  inventory: unknown;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

/** How long the first heartbeat of a batch waits for others, and the most one statement takes. */
const WINDOW_MS = 10;
const MAX_BATCH = 500;

/** The [slot, device id] pairs of a heartbeat when every entry is well formed (else undefined: full reconcile). */
function pairs(e: Heartbeat): [number, string][] | undefined {
  if (!Array.isArray(e.slots)) return undefined;
  const out: [number, string][] = [];
  for (const s of e.slots as unknown[]) {
    if (!s || typeof s !== 'object') return undefined;
    const { slot, powerbankId } = s as { slot?: unknown; powerbankId?: unknown };
    if (powerbankId === null || powerbankId === undefined) continue; // an empty slot
    if (
      !Number.isInteger(slot) ||
      (slot as number) < 1 ||
      typeof powerbankId !== 'string' ||
      !powerbankId ||
      powerbankId.length > 200
    )
      return undefined;
    out.push([slot as number, powerbankId]);
  }
  return out;
}

export class PresenceBatcher {
  private batch: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly d: { repo: CabinetsRepository; clock: Clock; orders: OrderRules }) {}

  /**
   * Records the heartbeat's presence if its inventory is unchanged: true; false when it needs the full reconcile
   * (something changed, a malformed entry, an unknown cabinet). A database failure rejects.
   */
  record(cabinetId: string, e: Heartbeat): Promise<boolean> {
    const slots = pairs(e);
    if (!slots) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      this.batch.push({ id: cabinetId, slots, inventory: e.slots, resolve, reject });
      if (this.batch.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), WINDOW_MS);
    });
  }

  private flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.batch;
    this.batch = [];
    if (!batch.length) return;
    this.d.repo
      .presenceIfUnchanged(
        batch.map((w) => ({ id: w.id, slots: w.slots, inventory: w.inventory })),
        this.d.clock.now(),
        this.d.orders.closedByReturn,
      )
      .then(
        (recorded) => {
          for (const w of batch) w.resolve(recorded.has(w.id));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      );
  }
}
