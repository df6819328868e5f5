// A venue's live stock for the rider's venue page (GET live/shop): each cabinet's free slots and power banks as the
// venue page reads them. The database announces every change of a cabinet (online, slots, the devices in it, its
// commands, its held return reservations: the fleet channel, cabinets/fleet-live.ts); a stream reads the venue again
// through the ordinary read only for its own cabinets, and says 'shop' only when what the page shows changed (a
// heartbeat alone changes nothing). A cabinet that falls silent writes nothing, so the stream also reads again every
// minute (the liveness rule: it counts as offline once unheard). Lost announcements ('null') read again at once.
import type { LiveEvent } from '#contract/live.ts';

/** What the venue page shows of a venue's cabinets, for one rider. */
export interface ShopStock {
  cabinets: { cabinetID: string; online: boolean; freeNum: number; returnNum: number }[];
}

export interface ShopStreamDeps {
  /** The venue page's read (VenuesService.detail) for `userId` (their own held return slot is free for them); 404 unknown. */
  stock(shopId: string, userId: number): Promise<ShopStock>;
  /** `fn(cabinetId)` for each cabinet announced changed, `fn(null)` when anything may have been missed. */
  changes(fn: (cabinetId: string | null) => void): () => void;
}

/** How long announcements are gathered before the venue is read again (a return moves a cabinet several times). */
export const SHOP_SETTLE_MS = 300;
/** The read without an announcement: a cabinet that stops reporting is offline after its missed heartbeats. */
export const SHOP_REREAD_MS = 60_000;

const digest = (s: ShopStock) => JSON.stringify(s.cabinets.map((c) => [c.cabinetID, c.online, c.freeNum, c.returnNum]));

/** Follows venue `shopId` for `userId`; `send` gets 'shop' on each change of what the page shows. Returns the stop. */
export function followShop(
  d: ShopStreamDeps,
  shopId: string,
  userId: number,
  send: (e: LiveEvent) => void,
  first: ShopStock,
): () => void {
  let mine = new Set(first.cabinets.map((c) => c.cabinetID));
  let last = digest(first);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const reread = async () => {
    timer = undefined;
    const now = await d.stock(shopId, userId).catch(() => undefined);
    if (stopped || !now) return;
    mine = new Set(now.cabinets.map((c) => c.cabinetID));
    const next = digest(now);
    if (next === last) return;
    last = next;
    send({ kind: 'shop', shopId });
  };
  const soon = () => {
    timer ??= setTimeout(() => void reread(), SHOP_SETTLE_MS);
  };
  const off = d.changes((id) => {
    if (id === null || mine.has(id)) soon();
  });
  const every = setInterval(soon, SHOP_REREAD_MS);
  return () => {
    stopped = true;
    off();
    clearInterval(every);
    clearTimeout(timer);
  };
}
