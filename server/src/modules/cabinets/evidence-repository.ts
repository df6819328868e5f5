// What the cabinets' own records say about a return a rider claims (read by modules/rentals/claims.ts): a
// `returned` of the power bank anywhere after it was taken, a slot anomaly "return detected but no power bank" at
// the cabinet, and when the cabinet was last heard from.
import type { Queryable } from '../../db/db.ts';

export const RETURN_WITHOUT_POWER_BANK = 'vendor-slot-anomaly:return-without-power-bank';

export class ReturnEvidenceRepository {
  constructor(private readonly db: Queryable) {}

  /** The first `returned` of this power bank (any cabinet) stamped at or after `since`. */
  async returned(powerbankId: string, since: Date) {
    const { rows } = await this.db.query<{
      id: string;
      cabinet_id: string;
      cabinet_ts: Date;
      payload: { slot?: number } | string;
    }>(
      `select id, cabinet_id, cabinet_ts, payload from cabinet_events
        where type = 'returned' and payload->>'powerbankId' = $1 and cabinet_ts >= $2 order by cabinet_ts limit 1`,
      [powerbankId, since],
    );
    const r = rows[0];
    if (!r) return undefined;
    const p = typeof r.payload === 'string' ? (JSON.parse(r.payload) as { slot?: number }) : r.payload;
    return { eventId: r.id, cabinetId: r.cabinet_id, at: new Date(r.cabinet_ts), slot: Number(p.slot ?? 0) };
  }

  /** The cabinet's latest "return detected but no power bank" anomaly, if reported between `from` and `to`. */
  async returnWithoutPowerBank(cabinetId: string, from: Date, to: Date) {
    const { rows } = await this.db.query<{ last_at: Date; count: number; last_payload: string | null }>(
      'select last_at, count, last_payload from cabinet_rejects where cabinet_id = $1 and reason = $2 and last_at between $3 and $4',
      [cabinetId, RETURN_WITHOUT_POWER_BANK, from, to],
    );
    const r = rows[0];
    if (!r) return undefined;
    let payload: { slot?: number; bankId?: string } = {};
    try {
      payload = r.last_payload ? (JSON.parse(r.last_payload) as typeof payload) : {};
    } catch {
      // an unreadable payload is still an anomaly at that time
    }
    return {
      at: new Date(r.last_at),
      count: Number(r.count),
      slot: Number(payload.slot ?? 0),
      bankId: payload.bankId ?? null,
    };
  }

  /** When the cabinet was last heard from, and whether it says it is online. */
  async liveness(cabinetId: string) {
    const { rows } = await this.db.query<{ online: boolean; last_seen_at: Date | null }>(
      'select online, last_seen_at from cabinets where id = $1',
      [cabinetId],
    );
    return rows[0];
  }
}
