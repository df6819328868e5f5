// The Wi-Fi boxes: their network and password rotation, and their telemetry (battery, signal, traffic).
import type { Queryable } from '../../db/db.ts';

/** A Wi-Fi box: its network, and a new password while the box has not confirmed it (docs/cabinet-protocol.md). */
export interface BoxRow {
  sn: string;
  ssid: string;
  password: string;
  pending_password: string | null;
  password_command_id: string | null;
  password_changed_at: Date | null;
}

export class MifiBoxesRepository {
  constructor(private readonly db: Queryable) {}

  async box(sn: string) {
    const { rows } = await this.db.query<BoxRow>('select * from mifi_boxes where sn = $1', [sn]);
    return rows[0];
  }

  /** A new Wi-Fi password for the box, pending until the box confirms the command `commandId`. */
  async setPendingPassword(sn: string, password: string, commandId: string) {
    await this.db.query('update mifi_boxes set pending_password = $2, password_command_id = $3 where sn = $1', [
      sn,
      password,
      commandId,
    ]);
  }

  /** The box confirmed the command: its pending password becomes its password. False for any other (older) command. */
  async confirmPassword(sn: string, commandId: string, at: Date) {
    const res = await this.db.query(
      `update mifi_boxes set password = pending_password, pending_password = null, password_command_id = null, password_changed_at = $3
         where sn = $1 and password_command_id = $2 and pending_password is not null`,
      [sn, commandId, at],
    );
    return res.rowCount === 1;
  }

  async insertTelemetry(t: {
    sn: string;
    at: Date;
    battery: number | null;
    signal: number | null;
    bytesTotal: number;
    online: boolean;
  }) {
    await this.db.query(
      'insert into mifi_telemetry (sn, at, battery, signal, bytes_total, online) values ($1,$2,$3,$4,$5,$6)',
      [t.sn, t.at, t.battery, t.signal, t.bytesTotal, t.online],
    );
  }

  /** The box's last report (`since`: the last one at or after that time, e.g. within a holding). */
  async lastTelemetry(sn: string, since?: Date) {
    const { rows } = await this.db.query<{
      at: Date;
      battery: number | null;
      signal: number | null;
      bytes_total: number;
      online: boolean;
    }>(
      'select at, battery, signal, bytes_total, online from mifi_telemetry where sn = $1 and ($2::timestamptz is null or at >= $2) order by at desc, id desc limit 1',
      [sn, since ?? null],
    );
    return rows[0] ? { ...rows[0], bytes_total: Number(rows[0].bytes_total) } : undefined;
  }

  /** Traffic in [from, to]: the counter's rise between the last report before the period (or its first in it) and its last in it. */
  async usage(sn: string, from: Date, to: Date) {
    const { rows } = await this.db.query<{ used: number; online_s: number }>(
      `with r as (select id, at, bytes_total, online from mifi_telemetry where sn = $1 and at <= $3),
            base as (select coalesce((select bytes_total from r where at < $2 order by at desc, id desc limit 1), (select bytes_total from r where at >= $2 order by at, id limit 1)) as b),
            top as (select bytes_total as t from r where at >= $2 order by at desc, id desc limit 1)
       select greatest(0, coalesce((select t from top), 0) - coalesce((select b from base), 0))::bigint as used,
              (select count(*) from r where at >= $2 and online)::int * 60 as online_s`,
      [sn, from, to],
    );
    return { used: Number(rows[0]?.used ?? 0), onlineSeconds: Number(rows[0]?.online_s ?? 0) };
  }
}
