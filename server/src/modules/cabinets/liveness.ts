// When is a cabinet online? It says so (status topic / last will) AND it has been heard from recently: cabinets
// send a heartbeat every 15–60 s (docs/cabinet-protocol.md), so three missed maximum intervals without any report
// means it is offline even when no offline status or last will reached us (a half-open connection, a lost broker).

/** A cabinet not heard from for this long is offline. */
export const OFFLINE_AFTER_MS = 3 * 60_000;

/** The liveness rule with its clock and threshold, shared by the cabinets repository and the map. */
export class Liveness {
  constructor(
    private readonly clock: { now(): Date },
    readonly offlineAfterMs = OFFLINE_AFTER_MS,
  ) {}

  since(): Date {
    return new Date(this.clock.now().getTime() - this.offlineAfterMs);
  }

  isLive(c: { online: boolean; last_seen_at: Date | string | null }): boolean {
    if (!c.online || !c.last_seen_at) return false;
    return new Date(c.last_seen_at).getTime() >= this.since().getTime();
  }
}
