// The console's live view of cabinets: the database announces every change of a cabinet an operator watches
// (migration 20261211120000_cabinet_ops.sql) on one channel per schema; this process hands each announcement to
// the event streams it holds (ops-routes.ts), which read the cabinet again through the ordinary path (one source
// of truth, the scope checked on every read). A lost listening connection tells every stream to read everything.
import { schemaChannel, type Db } from '../../db/db.ts';

type Listener = (cabinetId: string | null) => void;

export class FleetLive {
  private readonly listeners = new Set<Listener>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly schema: () => Promise<string>,
  ) {}

  async start(): Promise<void> {
    if (this.unlisten) return;
    this.unlisten = await this.db.listen(schemaChannel('powerly_fleet_', await this.schema()), (id) => {
      for (const fn of this.listeners) fn(id);
    });
  }

  async stop(): Promise<void> {
    const u = this.unlisten;
    this.unlisten = null;
    await u?.();
  }

  /** `fn(id)` for each cabinet that changed, `fn(null)` when anything may have been missed; returns the unsubscribe. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  get streams(): number {
    return this.listeners.size;
  }
}
