import type { RentalKind } from '#core/devices.ts';
import type { Queryable } from '../../db/db.ts';
import type { PricePlan, WirePriceStrategy } from '#core/pricing.ts';
import type { GracePeriod } from '#contract/returns.ts';
import { BUY_OUT_FROM, canTransition, ONGOING_STATES, OPEN_STATES, Zujie } from './order-state.ts';

/**
 * SQL: order `o` is one that its power bank coming back closes (open, or bought out and not yet returned). The
 * heartbeat's reconcile settles it when the power bank is listed in a slot (cabinets service and its batch).
 */
export const CLOSED_BY_RETURN = (o: string) =>
  `((${o}.zujie in (${Zujie.renting}, ${Zujie.fault}) and not ${o}.settled) or (${o}.bought_out_at is not null and ${o}.returned_at is null))`;

export interface OrderRow {
  id: string;
  user_id: number;
  cabinet_id: string;
  venue_id: string;
  zujie: number;
  settled: boolean;
  deposit_type: number;
  currency: string;
  plan: PricePlan;
  wire_strategy: Required<WirePriceStrategy>;
  deposit: number;
  hold_transfer_id: string | null;
  payment_id: string | null;
  powerbank_id: string | null;
  slot: number | null;
  eject_command_id: string | null;
  created_at: Date;
  borrowed_at: Date | null;
  returned_at: Date | null;
  return_cabinet_id: string | null;
  return_venue_name: string | null;
  fee: number | null;
  use_minutes: number | null;
  note: string | null;
  bought_out_at: Date | null;
  venue_name?: string;
  /** The token-less detail link's secret, made on the owner's first share. */
  share_sign?: string | null;
  /** Order state 4: when the power bank was reported faulty (the charge stops there). */
  fault_at?: Date | null;
  /** What a failed off-session deduction left unpaid (minor units); paid with payType FK. */
  debt?: number;
  debt_paid_at?: Date | null;
  /** The device rented: a power bank or a power station (src/core/devices.ts). */
  device_kind: RentalKind;
  /** Grace periods granted (grace.ts), oldest first: the rental does not count inside them. */
  grace?: GracePeriod[] | null;
}

const parse = (r: OrderRow): OrderRow => ({
  ...r,
  user_id: Number(r.user_id),
  plan: typeof r.plan === 'string' ? (JSON.parse(r.plan) as PricePlan) : r.plan,
  wire_strategy:
    typeof r.wire_strategy === 'string'
      ? (JSON.parse(r.wire_strategy) as Required<WirePriceStrategy>)
      : r.wire_strategy,
});

export class RentalsRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * The rent transaction's own statements in one call (the function `rental_start`, migration 20270128000001): locks
   * the user (recording `currency` as their last one) and the cabinet, counts the user's open rentals and finds a
   * free slot under those locks, and only when there is no open rental and a free slot writes the order, its eject
   * command (`command` with the slot) and its jobs, marking the job `cancelJob` done. Returns what it counted and
   * found: the caller refuses when `open` > 0 or `slot` is undefined (nothing was written then).
   */
  async start(
    o: Omit<
      OrderRow,
      | 'bought_out_at'
      | 'settled'
      | 'zujie'
      | 'borrowed_at'
      | 'returned_at'
      | 'return_cabinet_id'
      | 'return_venue_name'
      | 'fee'
      | 'use_minutes'
      | 'note'
      | 'powerbank_id'
      | 'slot'
    >,
    command: { payload: Record<string, unknown>; expiresAt: Date },
    jobs: { kind: string; payload: Record<string, unknown>; runAt: Date }[],
    cancelJob: number | undefined,
  ): Promise<{ open: number; slot: number | undefined }> {
    const { rows } = await this.db.query<{ open_count: number; slot: number | null }>(
      `select open_count, slot from rental_start($1::bigint, $2::text, $3::smallint[], $4::text, $5::timestamptz,
         $6::text, $7::text, $8::text, $9::smallint, $10::jsonb, $11::jsonb, $12::bigint, $13::text, $14::text,
         $15::text, $16::jsonb, $17::timestamptz, $18::text[], $19::jsonb[], $20::timestamptz[], $21::bigint)`,
      [
        o.user_id,
        o.currency,
        OPEN_STATES,
        o.cabinet_id,
        o.created_at,
        o.device_kind,
        o.id,
        o.venue_id,
        o.deposit_type,
        JSON.stringify(o.plan),
        JSON.stringify(o.wire_strategy),
        o.deposit,
        o.hold_transfer_id,
        o.payment_id,
        o.eject_command_id,
        JSON.stringify(command.payload),
        command.expiresAt,
        jobs.map((j) => j.kind),
        jobs.map((j) => JSON.stringify(j.payload)),
        jobs.map((j) => j.runAt.toISOString()),
        cancelJob ?? null,
      ],
    );
    const r = rows[0]!;
    return { open: Number(r.open_count), slot: r.slot ?? undefined };
  }

  /** Sets the share sign once (a concurrent first share keeps the first); returns the stored one. */
  async shareSign(id: string, candidate: string): Promise<string> {
    await this.db.query(`update orders set share_sign = $2 where id = $1 and share_sign is null`, [id, candidate]);
    const { rows } = await this.db.query<{ share_sign: string }>(`select share_sign from orders where id = $1`, [id]);
    return rows[0]!.share_sign;
  }

  async find(id: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<OrderRow>(
      `select o.*, v.name as venue_name from orders o join venues v on v.id = o.venue_id where o.id = $1${opts.lock ? ' for update of o' : ''}`,
      [id],
    );
    return rows[0] ? parse(rows[0]) : undefined;
  }

  /** The order a returned power bank closes: an open one, or a bought-out one not yet returned. */
  async openForPowerbank(powerbankId: string) {
    const { rows } = await this.db.query<{ id: string }>(
      `select id from orders where powerbank_id = $1
          and ((zujie = any($2::smallint[]) and not settled) or (bought_out_at is not null and returned_at is null))
        order by (not settled) desc, created_at desc limit 1`,
      [powerbankId, ONGOING_STATES],
    );
    return rows[0] ? this.find(rows[0].id, { lock: true }) : undefined;
  }

  /** The rider's latest order with a device out (renting or fault, not settled). */
  async renting(userId: number) {
    const { rows } = await this.db.query<{ id: string; powerbank_id: string }>(
      `select id, powerbank_id from orders where user_id = $1 and zujie = any($2::smallint[]) and not settled and powerbank_id is not null
        order by borrowed_at desc nulls last, id limit 1`,
      [userId, ONGOING_STATES],
    );
    return rows[0];
  }

  async openCount(userId: number) {
    const { rows } = await this.db.query<{ n: number }>('select rental_open_count($1, $2::smallint[]) as n', [
      userId,
      OPEN_STATES,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  async list(userId: number, page: number, size: number) {
    const { rows } = await this.db.query<OrderRow>(
      `select o.*, v.name as venue_name from orders o join venues v on v.id = o.venue_id where o.user_id = $1
        order by (o.zujie = any($4::smallint[]) and not o.settled) desc, o.created_at desc, o.id desc limit $2 offset $3`,
      [userId, size, (page - 1) * size, ONGOING_STATES],
    );
    const { rows: c } = await this.db.query<{ n: number }>('select count(*)::int as n from orders where user_id = $1', [
      userId,
    ]);
    return { records: rows.map(parse), total: Number(c[0]?.n ?? 0) };
  }

  /** The one place an order changes state: checked against ORDER_TRANSITIONS, compare-and-set on the old state. */
  async transition(
    id: string,
    from: number,
    to: number,
    fields: Partial<
      Record<
        | 'powerbank_id'
        | 'slot'
        | 'borrowed_at'
        | 'returned_at'
        | 'return_cabinet_id'
        | 'return_venue_name'
        | 'fee'
        | 'use_minutes'
        | 'note'
        | 'settled'
        | 'fault_at',
        unknown
      >
    >,
  ) {
    if (!canTransition(from, to)) throw new Error(`order ${id}: ${from} → ${to} is not allowed`);
    const cols = Object.keys(fields);
    const sets = cols.map((c, i) => `, ${c} = $${i + 4}`).join('');
    const res = await this.db.query(`update orders set zujie = $3${sets} where id = $1 and zujie = $2`, [
      id,
      from,
      to,
      ...cols.map((c) => fields[c as keyof typeof fields]),
    ]);
    if (res.rowCount !== 1) throw new Error(`order ${id} was not in state ${from}`);
  }

  /** The desk waived the debt: it no longer shows a pay button, and the fee is what was actually paid. */
  async waiveDebt(id: string, debt: number, at: Date) {
    await this.db.query(
      'update orders set debt_paid_at = $3, fee = greatest(0, coalesce(fee, 0) - $2) where id = $1 and debt = $2 and debt_paid_at is null',
      [id, debt, at],
    );
  }

  /** Overtime buy-out: settles an open order in place (see BUY_OUT_FROM), compare-and-set on state and settled. */
  /** The card payment now guaranteeing an open order (a renewed hold replaces the lapsing one). */
  async setPayment(id: string, paymentId: string) {
    await this.db.query('update orders set payment_id = $2 where id = $1', [id, paymentId]);
  }

  /** A failed off-session deduction: the order owes `amount` (added to any earlier debt). */
  async addDebt(id: string, amount: number) {
    await this.db.query('update orders set debt = debt + $2, debt_paid_at = null where id = $1', [id, amount]);
  }

  /**
   * A refund of rent lowered what the order still owes by `amount` (never taken, so nothing goes back for it); owing
   * nothing any more, the debt is closed (no pay button).
   */
  async lowerDebt(id: string, amount: number, at: Date) {
    await this.db.query(
      `update orders set debt = debt - $2, debt_paid_at = case when debt - $2 <= 0 then $3::timestamptz else null end
        where id = $1 and debt_paid_at is null and debt >= $2`,
      [id, amount, at],
    );
  }

  /** The debt was paid (payType FK); false when there was none (a repeated payment). */
  async payDebt(id: string, amount: number, at: Date) {
    const res = await this.db.query(
      'update orders set debt_paid_at = $3 where id = $1 and debt = $2 and debt > 0 and debt_paid_at is null',
      [id, amount, at],
    );
    return res.rowCount === 1;
  }

  async buyOut(id: string, from: number, fields: { fee: number; use_minutes: number; at: Date; note: string }) {
    if (!BUY_OUT_FROM.includes(from as never)) throw new Error(`order ${id}: no buy-out from ${from}`);
    const res = await this.db.query(
      `update orders set settled = true, bought_out_at = $3, fee = $4, use_minutes = $5, note = $6
        where id = $1 and zujie = $2 and not settled`,
      [id, from, fields.at, fields.fee, fields.use_minutes, fields.note],
    );
    if (res.rowCount !== 1) throw new Error(`order ${id} was not open in state ${from}`);
  }

  /**
   * The settled, returned (not bought-out) rental of `powerbankId` whose pop was at or before `at` and whose return
   * was recorded after it: a later report settled it.
   */
  async settledAfter(powerbankId: string, at: Date) {
    const { rows } = await this.db.query<{ id: string }>(
      `select id from orders where powerbank_id = $1 and settled and bought_out_at is null and zujie = any($3::smallint[])
          and borrowed_at <= $2 and returned_at > $2
        order by borrowed_at desc, id desc limit 1`,
      [powerbankId, at, [Zujie.returned, Zujie.overtimeReturn]],
    );
    return rows[0]?.id;
  }

  /** A settled return moved back to an earlier report: compare-and-set on the return time it had. */
  async moveReturn(id: string, from: Date, to: Date, fee: number, useMinutes: number) {
    const res = await this.db.query(
      'update orders set returned_at = $3, fee = $4, use_minutes = $5 where id = $1 and returned_at = $2',
      [id, from, to, fee, useMinutes],
    );
    return res.rowCount === 1;
  }

  /** Orders taking a power bank from `cabinetId` that the cabinet has not answered yet (each reserves one). */
  async openPowerbanks(ids: string[]) {
    const { rows } = await this.db.query<{ powerbank_id: string }>(
      `select distinct powerbank_id from orders o where powerbank_id = any($1::text[]) and ${CLOSED_BY_RETURN('o')}`,
      [ids],
    );
    return rows.map((r) => r.powerbank_id);
  }

  async pendingAt(cabinetId: string) {
    const { rows } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from orders where cabinet_id = $1 and zujie = $2`,
      [cabinetId, Zujie.pending],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Every order of one user becomes another's (a tourist signing into an existing account). */
  async reassign(fromUserId: number, toUserId: number) {
    await this.db.query('update orders set user_id = $2 where user_id = $1', [fromUserId, toUserId]);
  }

  /** Records a grace period on the order (appended: oldest first). */
  async addGrace(id: string, g: GracePeriod) {
    await this.db.query(`update orders set grace = grace || jsonb_build_array($2::jsonb) where id = $1`, [
      id,
      JSON.stringify(g),
    ]);
  }
}
