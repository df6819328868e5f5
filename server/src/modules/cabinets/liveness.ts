// When is a cabinet online? It says so (status topic / last will) AND it has been heard from recently: cabinets
// send a heartbeat every 15–60 s (docs/cabinet-protocol.md), so three missed maximum intervals without any report
// means it is offline even when no offline status or last will reached us (a half-open connection, a lost broker).

/** A cabinet not heard from for this long is offline. */
export const OFFLINE_AFTER_MS = 3 * 60_000;

/** The earliest last-report time at which a cabinet still counts as online at `now`. */
export function liveSince(now: Date): Date {
  return new Date(now.getTime() - OFFLINE_AFTER_MS);
}

export function isLive(c: { online: boolean; last_seen_at: Date | string | null }, now: Date): boolean {
  if (!c.online || !c.last_seen_at) return false;
  return new Date(c.last_seen_at).getTime() >= liveSince(now).getTime();
}
