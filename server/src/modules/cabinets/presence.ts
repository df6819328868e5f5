// Heartbeats in batches. Ten thousand cabinets heartbeating every 30 s are 333 heartbeats a second; nearly all
// of them say "still here, same inventory". Reconciling each one on its own (a transaction, locks, five reads
// and a write: about a dozen round trips) made one process fall behind at a few thousand cabinets. Instead the
// heartbeats that arrive within a few milliseconds are checked and recorded together in one statement
// (CabinetsRepository.presenceIfUnchanged); only a cabinet whose inventory differs from what we believe (or that
// could not be checked) gets the full reconcile, exactly as before (docs/cabinet-protocol.md §Inventory).
// A heartbeat is never acknowledged or stored (the next one supersedes it), so batching it loses nothing; the
// cabinet link keeps each cabinet's messages in order, so a later event of the same cabinet waits for it.
// A command's "accepted" answer (every command's first) is recorded the same way, with others in one statement: it
// only stops the command being re-published, and the command's outcome sets it too, so nothing waits for it.
import type { Clock } from '../../lib/clock.ts';
import type { CabinetEvent } from './protocol.ts';
import type { CabinetsRepository } from './repository.ts';
import type { OrderRules } from './ports.ts';
import type { Logger } from './link.ts';
import { Batch } from '../../lib/batch.ts';

type Heartbeat = Extract<CabinetEvent, { type: 'heartbeat' }>;

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
  private readonly heartbeats: Batch<{ id: string; slots: [number, string][]; inventory: unknown }, boolean>;
  private readonly accepts: Batch<{ commandId: string; cabinetId: string; at: Date }, true>;

  constructor(private readonly d: { repo: CabinetsRepository; clock: Clock; orders: OrderRules; log: Logger }) {
    this.heartbeats = new Batch(
      async (batch) => {
        const recorded = await d.repo.presenceIfUnchanged(batch, d.clock.now(), d.orders.closedByReturn);
        return batch.map((h) => recorded.has(h.id));
      },
      WINDOW_MS,
      MAX_BATCH,
    );
    this.accepts = new Batch(
      async (batch) => {
        await d.repo.acceptMany(batch);
        return batch.map(() => true as const);
      },
      WINDOW_MS,
      MAX_BATCH,
    );
  }

  /**
   * Records the heartbeat's presence if its inventory is unchanged: true; false when it needs the full reconcile
   * (something changed, a malformed entry, an unknown cabinet). A database failure rejects.
   */
  record(cabinetId: string, e: Heartbeat): Promise<boolean> {
    const slots = pairs(e);
    if (!slots) return Promise.resolve(false);
    return this.heartbeats.add({ id: cabinetId, slots, inventory: e.slots });
  }

  /** Records a command's "accepted" answer with others, not waited for (a failure is logged). */
  accepted(cabinetId: string, commandId: string) {
    this.accepts
      .add({ commandId, cabinetId, at: this.d.clock.now() })
      .catch((err: unknown) => this.d.log.warn({ err, cabinetId, commandId }, 'command acceptance not recorded'));
  }
}
