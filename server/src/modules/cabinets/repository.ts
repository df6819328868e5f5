import type { DeviceKind } from '#core/devices.ts';
import type { Queryable } from '../../db/db.ts';
import { CabinetScanRead, type CabinetRow } from './scan-repository.ts';
import type { Liveness } from './liveness.ts';
import type { OrderRules } from './ports.ts';

export type { InboxRow } from './inbox-repository.ts';
export type { CabinetRow, ScanView } from './scan-repository.ts';

/** A command sent to a cabinet (cabinet_commands), as `command()` reads it. */
export interface CommandRow {
  id: string;
  cabinet_id: string;
  order_id: string;
  type?: string;
  payload: unknown;
  result: string | null;
}

export interface PowerbankRow {
  id: string;
  /** missing: not where its cabinet last reported it, on no rental; quarantined: unknown until an operator releases it. */
  state: 'in_cabinet' | 'rented' | 'missing' | 'quarantined';
  cabinet_id: string | null;
  slot: number | null;
  order_id: string | null;
  /** The cabinet time of the report that put it where it is (null: never reported). */
  seen_at: Date | null;
  /** What the slot holds: a power bank, a power station or a Wi-Fi box (src/core/devices.ts). */
  kind: DeviceKind;
}

/**
 * The cabinets, their slots and commands; the scan's read and the inbox and reject counters are its bases
 * (scan-repository.ts, inbox-repository.ts).
 */
export class CabinetsRepository extends CabinetScanRead {
  /** With a liveness rule, `online` of a found cabinet also requires a recent report (missed heartbeats = offline). */
  constructor(
    db: Queryable,
    private readonly liveness?: Liveness,
  ) {
    super(db);
  }

  async find(id: string) {
    const { rows } = await this.db.query<CabinetRow>('select * from cabinets where id = $1', [id]);
    const c = rows[0];
    if (c && this.liveness) c.online = this.liveness.isLive(c);
    return c;
  }

  /** The liveness rule applied to a cabinet row as stored (missed heartbeats = offline). */
  isLive(c: CabinetRow): boolean {
    return this.liveness ? this.liveness.isLive(c) : c.online;
  }

  async all() {
    const { rows } = await this.db.query<CabinetRow & { venue_name: string; city: string; currency: string }>(
      'select c.*, v.name as venue_name, v.city, v.currency from cabinets c join venues v on v.id = c.venue_id order by c.id',
    );
    return rows;
  }

  async availableCount(cabinetId: string, kind: DeviceKind = 'cdb') {
    const { rows } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from powerbanks where cabinet_id = $1 and state = 'in_cabinet' and kind = $2`,
      [cabinetId, kind],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async powerbankExists(id: string) {
    return (await this.db.query('select 1 from powerbanks where id = $1', [id])).rows.length > 0;
  }

  /** Wi-Fi boxes out with a user (the demo page): the package each was picked up for. */
  async rentedBoxes() {
    const { rows } = await this.db.query<{ id: string; order_id: string | null }>(
      `select id, order_id from powerbanks where state = 'rented' and kind = 'mifi' order by id`,
    );
    return rows;
  }

  async rentedPowerbanks() {
    const { rows } = await this.db.query<PowerbankRow & { from_cabinet_id: string }>(
      `select p.*, o.cabinet_id as from_cabinet_id from powerbanks p join orders o on o.id = p.order_id
        where p.state = 'rented' order by p.id`,
    );
    return rows;
  }

  /**
   * The power bank left a cabinet for `orderId` at `at` (the cabinet's time). Not applied when a later report
   * placed it (a late 'popped' never overrides a later return); an unknown power bank is recorded as rented.
   */
  async markRented(powerbankId: string, orderId: string, at: Date, kind: DeviceKind = 'cdb') {
    const res = await this.db.query(
      `insert into powerbanks (id, state, order_id, seen_at, kind) values ($1, 'rented', $2, $3, $4)
       on conflict (id) do update set state = 'rented', cabinet_id = null, slot = null, order_id = $2, seen_at = $3
        where powerbanks.seen_at is null or powerbanks.seen_at <= $3 or powerbanks.state = 'missing'`,
      [powerbankId, orderId, at, kind],
    );
    return res.rowCount === 1;
  }

  /**
   * A cabinet reports `powerbankId` in `slot` at `at`: the cabinet is the authority on what is in its slots, so
   * anything we thought was there is missing. An unknown power bank is quarantined (never lent until an operator
   * releases it). Not applied when an even later report placed it elsewhere (false). Caller holds its lock.
   */
  async placeInSlot(powerbankId: string, cabinetId: string, slot: number, at: Date, kind?: DeviceKind) {
    const { rows } = await this.db.query<{ seen_at: Date | null }>('select seen_at from powerbanks where id = $1', [
      powerbankId,
    ]);
    const seen = rows[0]?.seen_at;
    if (seen && new Date(seen).getTime() > at.getTime()) return false;
    await this.db.query(
      `update powerbanks set cabinet_id = null, slot = null, state = case when state in ('rented', 'quarantined') then state else 'missing' end
        where cabinet_id = $1 and slot = $2 and id <> $3`,
      [cabinetId, slot, powerbankId],
    );
    await this.db.query(
      `insert into powerbanks (id, state, cabinet_id, slot, seen_at, kind) values ($1, 'quarantined', $2, $3, $4, coalesce($5, 'cdb'))
       on conflict (id) do update set state = case when powerbanks.state = 'quarantined' then 'quarantined' else 'in_cabinet' end,
         cabinet_id = $2, slot = $3, order_id = null, seen_at = $4, kind = coalesce($5, powerbanks.kind)`,
      [powerbankId, cabinetId, slot, at, kind ?? null],
    );
    return true;
  }

  /** Power banks recorded in this cabinet's slots that its report at `at` does not list (a quarantined one stays so). */
  async markMissing(ids: string[], cabinetId: string, at: Date) {
    await this.db.query(
      `update powerbanks set state = case when state = 'quarantined' then state else 'missing' end, cabinet_id = null, slot = null, seen_at = $3
        where id = any($1::text[]) and cabinet_id = $2 and (seen_at is null or seen_at <= $3)`,
      [ids, cabinetId, at],
    );
  }

  async powerbanks(ids: string[]) {
    const { rows } = await this.db.query<PowerbankRow>('select * from powerbanks where id = any($1::text[])', [ids]);
    return rows;
  }

  /** What we believe is in the cabinet's slots (lendable or quarantined). */
  async banksAt(cabinetId: string) {
    const { rows } = await this.db.query<PowerbankRow>('select * from powerbanks where cabinet_id = $1', [cabinetId]);
    return rows;
  }

  /** Quarantined power banks (unknown ones a cabinet reported), for an operator. */
  async quarantined() {
    const { rows } = await this.db.query<PowerbankRow>(
      `select * from powerbanks where state = 'quarantined' order by id`,
    );
    return rows;
  }

  /**
   * An operator registers a quarantined power bank: it becomes lendable where it is; one that left its slot
   * meanwhile (no longer listed) becomes missing, lendable once a cabinet reports it in a slot.
   */
  async release(powerbankId: string) {
    const res = await this.db.query(
      `update powerbanks set state = case when cabinet_id is null then 'missing' else 'in_cabinet' end where id = $1 and state = 'quarantined'`,
      [powerbankId],
    );
    return res.rowCount === 1;
  }

  /**
   * Serialises everything about these keys across processes until the unit of work ends (transaction-scoped
   * advisory locks, taken in a fixed order so two callers never wait on each other crosswise).
   */
  async lockKeys(keys: string[]) {
    for (const k of [...new Set(keys)].sort())
      await this.db.query('select pg_advisory_xact_lock(hashtextextended($1, 13))', [k]);
  }

  /**
   * A slot of the cabinet holding a lendable power bank that no unanswered, unexpired eject is aimed at
   * (each such eject reserves its slot); undefined when none is left.
   */
  async freeSlot(cabinetId: string, now: Date, kind: DeviceKind = 'cdb') {
    // The rule is the function cabinet_free_slot's (migration 20270128000001), which the rent transaction applies too.
    const { rows } = await this.db.query<{ slot: number | null }>(
      'select cabinet_free_slot($1, $2::timestamptz, $3) as slot',
      [cabinetId, now, kind],
    );
    return rows[0]?.slot ?? undefined;
  }

  /** `find` with a slot an eject may aim at now (freeSlot's rule), in one statement: a rent's first read. */
  async findWithFreeSlot(id: string, now: Date, kind: DeviceKind) {
    const { rows } = await this.db.query<CabinetRow & { free_slot: number | null }>(
      'select c.*, cabinet_free_slot(c.id, $2::timestamptz, $3) as free_slot from cabinets c where c.id = $1',
      [id, now, kind],
    );
    if (!rows[0]) return undefined;
    const { free_slot, ...cabinet } = rows[0];
    if (this.liveness) cabinet.online = this.liveness.isLive(cabinet);
    return { cabinet, slot: free_slot ?? undefined };
  }

  /**
   * Commands not yet acknowledged by their cabinet and still valid (re-published after the link reconnects), or
   * one cabinet's (re-published when it comes online).
   */
  async unansweredCommands(now: Date, cabinetId?: string) {
    const { rows } = await this.db.query<{ id: string; cabinet_id: string; payload: unknown }>(
      `select id, cabinet_id, payload from cabinet_commands where acked_at is null and result is null and expires_at > $1
         ${cabinetId ? 'and cabinet_id = $2' : ''} order by created_at`,
      cabinetId ? [now, cabinetId] : [now],
    );
    return rows;
  }

  async setOnline(cabinetId: string, online: boolean, at: Date, inventory: unknown) {
    await this.db.query(
      `update cabinets set online = $2, last_seen_at = greatest(coalesce(last_seen_at, $3), $3),
         inventory = coalesce($4::jsonb, inventory) where id = $1`,
      [cabinetId, online, at, inventory === undefined ? null : JSON.stringify(inventory)],
    );
  }

  async setVolume(cabinetId: string, volume: number) {
    await this.db.query('update cabinets set volume = $2 where id = $1 and volume is distinct from $2', [
      cabinetId,
      volume,
    ]);
  }

  async setFirmware(cabinetId: string, firmware: string, at: Date) {
    await this.db.query(
      'update cabinets set firmware = $2, firmware_at = $3 where id = $1 and firmware is distinct from $2',
      [cabinetId, firmware, at],
    );
  }

  /**
   * Heartbeats whose inventory is what we already believe (every listed device in that slot of that cabinet, in
   * it or quarantined, none on a rental its return would close, nothing else recorded there): their presence
   * (online, last seen, the reported inventory) is recorded for all of them in one statement. Returns the
   * cabinets recorded; any other (a change to reconcile, an unknown cabinet, a cabinet row locked right now by
   * a rent) is left to the caller's full reconcile. `slots` are [slot, device id] pairs, already validated;
   * `closedByReturn` is the rentals' rule on an order row (ports.ts OrderRules).
   */
  async presenceIfUnchanged(
    reports: { id: string; slots: [number, string][]; inventory: unknown }[],
    at: Date,
    closedByReturn: OrderRules['closedByReturn'],
  ) {
    const { rows } = await this.db.query<{ id: string }>(
      `with hb as (select * from jsonb_to_recordset($1::jsonb) as h(id text, slots jsonb, inventory jsonb)),
       reported as (select hb.id as cabinet_id, (s->>0)::int as slot, s->>1 as powerbank_id from hb, jsonb_array_elements(hb.slots) s),
       changed as (
         select r.cabinet_id from reported r left join powerbanks b on b.id = r.powerbank_id
          where b.id is null or b.cabinet_id is distinct from r.cabinet_id or b.slot is distinct from r.slot or b.state not in ('in_cabinet', 'quarantined')
         union
         select b.cabinet_id from powerbanks b join hb on b.cabinet_id = hb.id
          where not exists (select 1 from reported r where r.cabinet_id = b.cabinet_id and r.powerbank_id = b.id)
         union
         select r.cabinet_id from reported r join cabinets c on c.id = r.cabinet_id where r.slot > c.slot_count
         union
         select r.cabinet_id from reported r join orders o on o.powerbank_id = r.powerbank_id where ${closedByReturn('o')}
       ),
       ready as (
         select c.id from cabinets c where c.id in (select id from hb) and c.id not in (select cabinet_id from changed)
          order by c.id for update of c skip locked
       )
       update cabinets c set online = true, last_seen_at = greatest(coalesce(c.last_seen_at, $2), $2), inventory = hb.inventory
         from hb where c.id = hb.id and c.id in (select id from ready)
       returning c.id`,
      [JSON.stringify(reports), at],
      { name: 'cabinets.presenceIfUnchanged' },
    );
    return new Set(rows.map((r) => r.id));
  }

  async insertCommand(c: {
    id: string;
    cabinetId: string;
    orderId: string;
    type: string;
    payload: unknown;
    at: Date;
    expiresAt: Date;
  }) {
    await this.db.query(
      `insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at) values ($1,$2,$3,$4,$5,$6,$7)`,
      [c.id, c.cabinetId, c.orderId, c.type, JSON.stringify(c.payload), c.at, c.expiresAt],
    );
  }

  async command(id: string) {
    const { rows } = await this.db.query<CommandRow>('select * from cabinet_commands where id = $1', [id]);
    return rows[0];
  }

  /** With `cabinetId`: only if the command is that cabinet's. */
  async ackCommand(id: string, at: Date, result: string | null, cabinetId?: string) {
    await this.db.query(
      `update cabinet_commands set acked_at = coalesce(acked_at, $2), result = coalesce($3, result)
        where id = $1 and ($4::text is null or cabinet_id = $4)`,
      [id, at, result, cabinetId ?? null],
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
        where powerbank_id = $1 and type = 'returned' and cabinet_ts > $2 and received_at >= $3
        order by cabinet_ts limit 1`,
      [powerbankId, after, receivedSince],
    );
    return rows[0];
  }

  /** Every cabinet's slot count and the power banks in its slots (the simulator starts from this). */
  async inventory() {
    const { rows: cabinets } = await this.db.query<{ id: string; slot_count: number; vendor: string }>(
      'select id, slot_count, vendor from cabinets order by id',
    );
    const { rows: banks } = await this.db.query<{ id: string; cabinet_id: string; slot: number; kind: DeviceKind }>(
      `select id, cabinet_id, slot, kind from powerbanks where state = 'in_cabinet' and cabinet_id is not null`,
    );
    return { cabinets, banks };
  }
}
