import type { Queryable } from '../../db/db.ts';
import type { Account } from '../ledger/repository.ts';
import type { PlanRow, VenueRow } from '../venues/repository.ts';
import type { Liveness } from './liveness.ts';

export interface CabinetRow {
  id: string;
  venue_id: string;
  slot_count: number;
  online: boolean;
  last_seen_at: Date | null;
}

export interface PowerbankRow {
  id: string;
  state: 'in_cabinet' | 'rented';
  cabinet_id: string | null;
  slot: number | null;
  order_id: string | null;
}

/** Everything the scan (checkisok) answers from, read in one round trip. */
export interface ScanView {
  cabinet: CabinetRow;
  venue: VenueRow;
  plan: PlanRow | undefined;
  /** The user's wallet account in the venue's currency (default agent), if it has one. */
  wallet: Account | undefined;
  /** Power banks in the cabinet's slots. */
  available: number;
  /** The user's open rentals. */
  openCount: number;
}

const json = <T>(v: T | string | null): T | undefined => (v === null ? undefined : typeof v === 'string' ? (JSON.parse(v) as T) : v);

export class CabinetsRepository {
  /** With a liveness rule, `online` of a found cabinet also requires a recent report (missed heartbeats = offline). */
  constructor(
    private readonly db: Queryable,
    private readonly liveness?: Liveness,
  ) {}

  async find(id: string) {
    const { rows } = await this.db.query<CabinetRow>('select * from cabinets where id = $1', [id]);
    const c = rows[0];
    if (c && this.liveness) c.online = this.liveness.isLive(c);
    return c;
  }

  /**
   * The scan's cabinet, venue, price plan, stock, the user's wallet in the venue currency and open rental count:
   * one joined query (a named prepared statement on PostgreSQL). Undefined when the cabinet does not exist.
   */
  async scanView(cabinetId: string, userId: number, openStates: readonly number[], agent: string): Promise<ScanView | undefined> {
    const { rows } = await this.db.query<{
      venue: VenueRow | string; plan: PlanRow | string | null; wallet: Account | string | null; available: number; open_count: number;
      id: string; venue_id: string; slot_count: number; online: boolean; last_seen_at: Date | null;
    }>(
      `select c.id, c.venue_id, c.slot_count, c.online, c.last_seen_at, to_jsonb(v) as venue, to_jsonb(p) as plan,
              (select to_jsonb(a) from ledger_accounts a
                where a.owner_type = 'user' and a.owner_id = $2 and a.currency = v.currency and a.agent_id = $4 and a.kind = 'wallet'
                limit 1) as wallet,
              (select count(*)::int from powerbanks b where b.cabinet_id = c.id and b.state = 'in_cabinet') as available,
              (select count(*)::int from orders o where o.user_id = $3 and o.zujie = any($5::smallint[]) and not o.settled) as open_count
         from cabinets c join venues v on v.id = c.venue_id left join price_plans p on p.venue_id = v.id
        where c.id = $1`,
      [cabinetId, String(userId), userId, agent, openStates],
      { name: 'cabinets.scanView' },
    );
    const r = rows[0];
    if (!r) return undefined;
    const cabinet: CabinetRow = { id: r.id, venue_id: r.venue_id, slot_count: r.slot_count, online: r.online, last_seen_at: r.last_seen_at };
    if (this.liveness) cabinet.online = this.liveness.isLive(cabinet);
    return {
      cabinet, venue: json(r.venue)!, plan: json(r.plan), wallet: json(r.wallet),
      available: Number(r.available), openCount: Number(r.open_count),
    };
  }

  async all() {
    const { rows } = await this.db.query<CabinetRow & { venue_name: string; city: string; currency: string }>(
      'select c.*, v.name as venue_name, v.city, v.currency from cabinets c join venues v on v.id = c.venue_id order by c.id',
    );
    return rows;
  }

  async availableCount(cabinetId: string) {
    const { rows } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from powerbanks where cabinet_id = $1 and state = 'in_cabinet'`,
      [cabinetId],
    );
    return Number(rows[0]?.n ?? 0);
  }


  async powerbankExists(id: string) {
    return (await this.db.query('select 1 from powerbanks where id = $1', [id])).rows.length > 0;
  }

  async rentedPowerbanks() {
    const { rows } = await this.db.query<PowerbankRow & { from_cabinet_id: string }>(
      `select p.*, o.cabinet_id as from_cabinet_id from powerbanks p join orders o on o.id = p.order_id
        where p.state = 'rented' order by p.id`,
    );
    return rows;
  }

  async markRented(powerbankId: string, orderId: string) {
    await this.db.query(
      `insert into powerbanks (id, state, order_id) values ($1, 'rented', $2)
       on conflict (id) do update set state = 'rented', cabinet_id = null, slot = null, order_id = $2`,
      [powerbankId, orderId],
    );
  }

  async placeInSlot(powerbankId: string, cabinetId: string, slot: number) {
    // The cabinet is the authority on what is in its slots: anything we thought was there is not.
    await this.db.query(`update powerbanks set cabinet_id = null, slot = null where cabinet_id = $1 and slot = $2 and id <> $3`, [
      cabinetId, slot, powerbankId,
    ]);
    await this.db.query(
      `insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)
       on conflict (id) do update set state = 'in_cabinet', cabinet_id = $2, slot = $3, order_id = null`,
      [powerbankId, cabinetId, slot],
    );
  }

  async setOnline(cabinetId: string, online: boolean, at: Date, inventory: unknown) {
    await this.db.query(
      `update cabinets set online = $2, last_seen_at = greatest(coalesce(last_seen_at, $3), $3),
         inventory = coalesce($4::jsonb, inventory) where id = $1`,
      [cabinetId, online, at, inventory === undefined ? null : JSON.stringify(inventory)],
    );
  }

  /** True the first time an event id is seen (QoS 1 may deliver it again). */
  async recordEvent(e: { id: string; cabinetId: string; type: string; ts: string; payload: unknown; at: Date }) {
    const res = await this.db.query(
      `insert into cabinet_events (id, cabinet_id, type, cabinet_ts, payload, received_at) values ($1,$2,$3,$4,$5,$6)
       on conflict (id) do nothing`,
      [`${e.cabinetId}:${e.id}`, e.cabinetId, e.type, e.ts, JSON.stringify(e.payload), e.at],
    );
    return res.rowCount === 1;
  }

  async insertCommand(c: { id: string; cabinetId: string; orderId: string; type: string; payload: unknown; at: Date; expiresAt: Date }) {
    await this.db.query(
      `insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at) values ($1,$2,$3,$4,$5,$6,$7)`,
      [c.id, c.cabinetId, c.orderId, c.type, JSON.stringify(c.payload), c.at, c.expiresAt],
    );
  }

  async command(id: string) {
    const { rows } = await this.db.query<{ id: string; cabinet_id: string; order_id: string; payload: unknown; result: string | null }>(
      'select * from cabinet_commands where id = $1',
      [id],
    );
    return rows[0];
  }

  async ackCommand(id: string, at: Date, result: string | null) {
    await this.db.query(
      'update cabinet_commands set acked_at = coalesce(acked_at, $2), result = coalesce($3, result) where id = $1',
      [id, at, result],
    );
  }

  /** Locks the cabinet's row: eject decisions on one cabinet are taken one at a time. */
  async lock(id: string) {
    await this.db.query('select id from cabinets where id = $1 for update', [id]);
  }

  /**
   * The first 'returned' event of a power bank stamped by its cabinet after `after` and received since
   * `receivedSince` (an event that overtook the 'popped' it follows).
   */
  async returnAfter(powerbankId: string, after: Date, receivedSince: Date) {
    const { rows } = await this.db.query<{ cabinet_id: string; payload: unknown }>(
      `select cabinet_id, payload from cabinet_events
        where type = 'returned' and payload->>'powerbankId' = $1 and cabinet_ts > $2 and received_at >= $3
        order by cabinet_ts limit 1`,
      [powerbankId, after, receivedSince],
    );
    return rows[0];
  }

  /** Every cabinet's slot count and the power banks in its slots (the simulator starts from this). */
  async inventory() {
    const { rows: cabinets } = await this.db.query<{ id: string; slot_count: number }>('select id, slot_count from cabinets order by id');
    const { rows: banks } = await this.db.query<{ id: string; cabinet_id: string; slot: number }>(
      `select id, cabinet_id, slot from powerbanks where state = 'in_cabinet' and cabinet_id is not null`,
    );
    return { cabinets, banks };
  }
}
