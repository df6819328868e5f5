// The SQL rule of a live session, the one every authenticated read applies (auth's repository) and the scan's
// one-round-trip read shares (cabinets' scanView): public so that the rule has one place.

/** SQL: session `s` is the one of token hash `hash` and still valid at `now` (not expired, not revoked). */
export const LIVE_SESSION = (s: string, hash: string, now: string) =>
  `${s}.token_hash = ${hash} and ${s}.expires_at > ${now} and ${s}.revoked_at is null`;
