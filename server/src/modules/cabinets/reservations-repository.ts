// Return slot reservations (reservations.ts): the only SQL of return_reservations, and the free slot a reservation
// takes (an empty, unlocked slot no held reservation keeps).
import type { Queryable } from '../../db/db.ts';

export interface ReservationRow {
  id: string;
  user_id: number | string;
  order_id: string;
  powerbank_id: string;
  cabinet_id: string;
  slot: number;
  command_id: string;
  state: 'held' | 'used' | 'expired' | 'cancelled';
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  /** Joined: the cabinet's venue, its name, and whether the cabinet acknowledged the reserve command. */
  venue_id: string;
  venue_name: string;
  confirmed: boolean;
}

export interface ReservableCabinet {
  id: string;
  venue_id: string;
  vendor: string;
  online: boolean;
  last_seen_at: Date | null;
}

const WITH_VENUE = `select r.*, c.venue_id, v.name as venue_name, (k.acked_at is not null and k.result is null) as confirmed
   from return_reservations r join cabinets c on c.id = r.cabinet_id join venues v on v.id = c.venue_id
   left join cabinet_commands k on k.id = r.command_id`;

export class ReservationsRepository {
  constructor(private readonly db: Queryable) {}

  /** Serialises these keys until the unit of work ends (the same advisory locks as the rent's). */
  async lockKeys(keys: string[]) {
    for (const k of [...new Set(keys)].sort())
      await this.db.query('select pg_advisory_xact_lock(hashtextextended($1, 13))', [k]);
  }

  /** Held reservations of the rider or of the cabinet whose time is up become 'expired' (before a new one is taken). */
  async expireDue(p: { userId?: number; cabinetId?: string; now: Date }) {
    await this.db.query(
      `update return_reservations set state = 'expired', ended_at = expires_at
        where state = 'held' and expires_at <= $3 and (user_id = $1 or cabinet_id = $2)`,
      [p.userId ?? null, p.cabinetId ?? null, p.now],
    );
  }

  /** The rider's held reservation still in time. */
  async heldOf(userId: number, now: Date) {
    const { rows } = await this.db.query<ReservationRow>(
      `${WITH_VENUE} where r.user_id = $1 and r.state = 'held' and r.expires_at > $2`,
      [userId, now],
    );
    return rows[0];
  }

  /**
   * The rider's latest reservation, whatever its state: the held one if there is one, else the latest made, and of
   * two made in the same instant the one that ended last (a time alone does not order them).
   */
  async latestOf(userId: number) {
    const { rows } = await this.db.query<ReservationRow>(
      `${WITH_VENUE} where r.user_id = $1 order by r.state = 'held' desc, r.created_at desc, coalesce(r.ended_at, r.expires_at) desc, r.id limit 1`,
      [userId],
    );
    return rows[0];
  }

  async find(id: string) {
    const { rows } = await this.db.query<ReservationRow>(`${WITH_VENUE} where r.id = $1`, [id]);
    return rows[0];
  }

  /** The held reservation (in time or not yet swept) for the return of this power bank. */
  async heldFor(powerbankId: string) {
    const { rows } = await this.db.query<ReservationRow>(
      `${WITH_VENUE} where r.powerbank_id = $1 and r.state = 'held'`,
      [powerbankId],
    );
    return rows[0];
  }

  async cabinet(id: string) {
    const { rows } = await this.db.query<ReservableCabinet>(
      'select id, venue_id, vendor, online, last_seen_at from cabinets where id = $1',
      [id],
    );
    return rows[0];
  }

  /** The cabinets of a live venue. */
  async cabinetsOfVenue(venueId: string) {
    const { rows } = await this.db.query<ReservableCabinet>(
      `select c.id, c.venue_id, c.vendor, c.online, c.last_seen_at from cabinets c join venues v on v.id = c.venue_id
        where c.venue_id = $1 and v.state = 'live' order by c.id`,
      [venueId],
    );
    return rows;
  }

  /**
   * The lowest slot of the cabinet that is empty by the records (no device placed in it), not locked by an operator
   * (its last inventory) and kept by no held reservation in time; undefined when none is.
   */
  async freeSlot(cabinetId: string, now: Date) {
    const { rows } = await this.db.query<{ slot: number }>(
      `select s.n as slot from cabinets c cross join lateral generate_series(1, c.slot_count) as s(n)
        where c.id = $1
          and not exists (select 1 from powerbanks p where p.cabinet_id = c.id and p.slot = s.n and p.state in ('in_cabinet', 'quarantined'))
          and not exists (select 1 from return_reservations r where r.cabinet_id = c.id and r.slot = s.n and r.state = 'held' and r.expires_at > $2)
          and not exists (select 1 from jsonb_array_elements(case when jsonb_typeof(c.inventory) = 'array' then c.inventory else '[]'::jsonb end) e
                           where e->>'slot' = s.n::text and e->>'locked' = 'true')
        order by s.n limit 1`,
      [cabinetId, now],
    );
    return rows[0]?.slot;
  }

  async insert(r: {
    id: string;
    userId: number;
    orderId: string;
    powerbankId: string;
    cabinetId: string;
    slot: number;
    commandId: string;
    at: Date;
    expiresAt: Date;
  }) {
    await this.db.query(
      `insert into return_reservations (id, user_id, order_id, powerbank_id, cabinet_id, slot, command_id, state, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'held', $8, $9)`,
      [r.id, r.userId, r.orderId, r.powerbankId, r.cabinetId, r.slot, r.commandId, r.at, r.expiresAt],
    );
  }

  /** Ends a held reservation; false when it was no longer held (a repeat, or another ending came first). */
  async end(id: string, state: 'used' | 'expired' | 'cancelled', at: Date) {
    const res = await this.db.query(
      `update return_reservations set state = $2, ended_at = $3 where id = $1 and state = 'held'`,
      [id, state, at],
    );
    return res.rowCount === 1;
  }

  /** A reserve or release command for the cabinet, stored before it is published (re-published until acknowledged). */
  async insertCommand(c: {
    id: string;
    cabinetId: string;
    orderId: string;
    payload: unknown;
    at: Date;
    expiresAt: Date;
  }) {
    await this.db.query(
      `insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at) values ($1, $2, $3, 'slot-reserve', $4, $5, $6)`,
      [c.id, c.cabinetId, c.orderId, JSON.stringify(c.payload), c.at, c.expiresAt],
    );
  }

  /** A reserve command not yet acknowledged is no longer to be re-published (its reservation ended). */
  async supersede(commandId: string) {
    await this.db.query(
      `update cabinet_commands set result = 'superseded' where id = $1 and acked_at is null and result is null`,
      [commandId],
    );
  }
}
