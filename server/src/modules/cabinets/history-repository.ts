// What the cabinets said and were told about one rental (the support desk's timeline): the commands sent for the
// order, and the events of its power bank (or answering its commands), with the cabinet's own timestamps.
import type { Queryable } from '../../db/db.ts';

export interface CommandHistoryRow {
  id: string;
  cabinet_id: string;
  type: string;
  payload: unknown;
  created_at: Date;
  expires_at: Date;
  acked_at: Date | null;
  result: string | null;
}

export interface EventHistoryRow {
  id: string;
  cabinet_id: string;
  type: string;
  cabinet_ts: Date | null;
  received_at: Date;
  state: string;
  powerbank_id: string | null;
  payload: unknown;
}

export class CabinetHistoryRepository {
  constructor(private readonly db: Queryable) {}

  async commandsOfOrder(orderId: string): Promise<CommandHistoryRow[]> {
    const { rows } = await this.db.query<CommandHistoryRow>(
      'select id, cabinet_id, type, payload, created_at, expires_at, acked_at, result from cabinet_commands where order_id = $1 order by created_at, id',
      [orderId],
    );
    return rows;
  }

  /** Events answering these commands, or of the power bank with a cabinet time in [from, to]. */
  async eventsOf(commandIds: string[], powerbankId: string | null, from: Date, to: Date): Promise<EventHistoryRow[]> {
    const { rows } = await this.db.query<EventHistoryRow>(
      `select id, cabinet_id, type, cabinet_ts, received_at, state, powerbank_id, payload from cabinet_events
        where payload->>'commandId' = any($1::text[])
           or ($2::text is not null and powerbank_id = $2 and coalesce(cabinet_ts, received_at) between $3 and $4)
        order by coalesce(cabinet_ts, received_at), received_at, id limit 500`,
      [commandIds, powerbankId, from, to],
    );
    return rows;
  }
}
