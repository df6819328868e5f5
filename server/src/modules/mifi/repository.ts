// The Wi-Fi orders and packages, and the payments waiting for their customer (the catalogue: catalogue-repository.ts;
// the boxes and their telemetry: boxes-repository.ts).
import { canMove } from '#core/mifi.ts';
import type { Queryable } from '../../db/db.ts';

function assertMove(from: number, to: number) {
  if (!canMove(from, to)) throw new Error(`package status ${from} → ${to} is not a transition of PACKAGE_TRANSITIONS`);
}

export interface PackageRow {
  id: string;
  order_id: string;
  user_id: number;
  sku_id: string;
  package_name: string;
  country: string | null;
  time_zone: string;
  days: number;
  price: number;
  deposit: number;
  currency: string;
  start_at: Date;
  end_at: Date;
  status: number;
  device_order_status: number;
  device_sn: string | null;
  renewal_of: string | null;
  pickup_state: number;
  pickup_msg: string | null;
  eject_command_id: string | null;
  hold_transfer_id: string | null;
  activated_at: Date | null;
  ended_at: Date | null;
  refunded_amount: number;
  created_at: Date;
  /** The payment that paid the box deposit on its own (cabinetDisposit: a hold or a charge); null from the wallet or with the order. */
  deposit_payment_id: string | null;
  deposit_captured: boolean;
  /** What a coupon took off this package's price; what its cancellation gave back to the method the order was paid with. */
  discount: number;
  card_refund: number;
  /** When the box was handed over to this package's holder, and when it came back (a box's data is its holder's). */
  bound_at: Date | null;
  returned_at: Date | null;
  order_type: number;
  payment_id: string | null;
  paid_from: string | null;
  is_package: boolean;
  flag_url: string;
}
/** A Wi-Fi payment waiting for its customer (mifi_payment_actions): what it pays and what it must take. */
export interface ActionRow {
  provider: string;
  ref: string;
  user_id: number;
  order_id: string;
  package_id: string | null;
  amount: number;
  currency: string;
  capture: 'automatic' | 'manual';
  created_at: Date;
}
export interface OrderInsert {
  id: string;
  user_id: number;
  order_type: number;
  currency: string;
  total: number;
  deposit: number;
  status: number;
  cabinet_id: string | null;
  created_at: Date;
}

const PKG_SELECT = `select k.*, o.order_type, o.payment_id, o.paid_from, s.is_package, coalesce(c.flag_url, r.flag_url) as flag_url
  from mifi_packages k join mifi_orders o on o.id = k.order_id join mifi_skus s on s.id = k.sku_id join mifi_regions r on r.id = s.region_id
  left join mifi_countries c on c.code = k.country`;
const num = (r: PackageRow): PackageRow => ({
  ...r,
  user_id: Number(r.user_id),
  price: Number(r.price),
  deposit: Number(r.deposit),
  refunded_amount: Number(r.refunded_amount),
  discount: Number(r.discount ?? 0),
  card_refund: Number(r.card_refund ?? 0),
});

export class MifiRepository {
  constructor(private readonly db: Queryable) {}

  async insertOrder(o: OrderInsert) {
    await this.db.query(
      `insert into mifi_orders (id, user_id, order_type, currency, total, deposit, status, cabinet_id, created_at) values ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
      [o.id, o.user_id, o.order_type, o.currency, o.total, o.deposit, o.status, o.cabinet_id, o.created_at],
    );
  }

  async insertPackage(
    p: Omit<
      PackageRow,
      | 'pickup_state'
      | 'pickup_msg'
      | 'eject_command_id'
      | 'hold_transfer_id'
      | 'activated_at'
      | 'ended_at'
      | 'refunded_amount'
      | 'order_type'
      | 'payment_id'
      | 'paid_from'
      | 'is_package'
      | 'flag_url'
      | 'deposit_payment_id'
      | 'deposit_captured'
      | 'bound_at'
      | 'returned_at'
      | 'discount'
      | 'card_refund'
    >,
  ) {
    await this.db.query(
      `insert into mifi_packages (id, order_id, user_id, sku_id, package_name, country, time_zone, days, price, deposit, currency, start_at, end_at,
         status, device_order_status, device_sn, renewal_of, created_at) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)`,
      [
        p.id,
        p.order_id,
        p.user_id,
        p.sku_id,
        p.package_name,
        p.country,
        p.time_zone,
        p.days,
        p.price,
        p.deposit,
        p.currency,
        p.start_at,
        p.end_at,
        p.status,
        p.device_order_status,
        p.device_sn,
        p.renewal_of,
        p.created_at,
      ],
    );
  }

  async orderPaid(id: string, paymentId: string | null, from: 'card' | 'wallet', at: Date, discount = 0) {
    await this.db.query(
      `update mifi_orders set status = 0, payment_id = $2, paid_from = $3, paid_at = $4, discount = $5 where id = $1`,
      [id, paymentId, from, at, discount],
    );
  }

  /** A package's share of its order's coupon discount (set when the order is paid). */
  async setDiscount(id: string, discount: number) {
    await this.db.query('update mifi_packages set discount = $2 where id = $1', [id, discount]);
  }

  /** What a package's cancellation gives back to the method the order was paid with (the rest goes back to the wallet). */
  async setCardRefund(id: string, amount: number) {
    await this.db.query('update mifi_packages set card_refund = $2 where id = $1', [id, amount]);
  }

  async setOrderStatus(id: string, status: number) {
    await this.db.query('update mifi_orders set status = $2 where id = $1', [id, status]);
  }

  /** An order; `lock` (inside a unit of work) serialises the calls that pay it. */
  async order(id: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<{
      id: string;
      user_id: number;
      order_type: number;
      currency: string;
      total: number;
      deposit: number;
      status: number;
      payment_id: string | null;
      paid_from: string | null;
      cabinet_id: string | null;
      discount: number;
    }>(`select * from mifi_orders where id = $1${opts.lock ? ' for update' : ''}`, [id]);
    const r = rows[0];
    return r
      ? {
          ...r,
          user_id: Number(r.user_id),
          total: Number(r.total),
          deposit: Number(r.deposit),
          discount: Number(r.discount),
        }
      : undefined;
  }

  async pkg(id: string, opts: { lock?: boolean } = {}) {
    if (opts.lock) await this.db.query('select id from mifi_packages where id = $1 for update', [id]);
    const { rows } = await this.db.query<PackageRow>(`${PKG_SELECT} where k.id = $1`, [id]);
    return rows[0] ? num(rows[0]) : undefined;
  }

  async packagesOfOrder(orderId: string) {
    const { rows } = await this.db.query<PackageRow>(`${PKG_SELECT} where k.order_id = $1 order by k.id`, [orderId]);
    return rows.map(num);
  }

  async list(userId: number, f: { isPicked?: number; limit: number; offset: number }) {
    const picked = f.isPicked === undefined ? null : f.isPicked === 1;
    const where = `where k.user_id = $1 and ($2::boolean is null or (k.device_sn is not null) = $2)`;
    const { rows } = await this.db.query<PackageRow>(
      `${PKG_SELECT} ${where} order by k.created_at desc, k.id limit $3 offset $4`,
      [userId, picked, f.limit, f.offset],
    );
    const { rows: n } = await this.db.query<{ n: number }>(`select count(*)::int as n from mifi_packages k ${where}`, [
      userId,
      picked,
    ]);
    return { rows: rows.map(num), total: Number(n[0]?.n ?? 0) };
  }

  /** Packages on a box (newest first). */
  async packagesOfSn(sn: string) {
    const { rows } = await this.db.query<PackageRow>(
      `${PKG_SELECT} where k.device_sn = $1 order by k.start_at desc, k.id`,
      [sn],
    );
    return rows.map(num);
  }

  /** Moves a package from one status to the next; a move the state machine does not have is a bug, never written. */
  async move(
    id: string,
    from: number,
    to: number,
    set: { activated_at?: Date; ended_at?: Date; refunded_amount?: number } = {},
  ) {
    assertMove(from, to);
    const res = await this.db.query(
      `update mifi_packages set status = $3, activated_at = coalesce($4, activated_at), ended_at = coalesce($5, ended_at),
         refunded_amount = refunded_amount + coalesce($6, 0) where id = $1 and status = $2`,
      [id, from, to, set.activated_at ?? null, set.ended_at ?? null, set.refunded_amount ?? null],
    );
    return res.rowCount === 1;
  }

  async setStatusOfOrder(orderId: string, from: number, to: number) {
    assertMove(from, to);
    await this.db.query('update mifi_packages set status = $3 where order_id = $1 and status = $2', [
      orderId,
      from,
      to,
    ]);
  }

  async setDevice(
    id: string,
    f: {
      sn?: string | null;
      deviceOrderStatus?: number;
      pickupState?: number;
      pickupMsg?: string | null;
      ejectCommandId?: string;
      holdTransferId?: string;
      deposit?: number;
      depositPaymentId?: string;
      depositCaptured?: boolean;
      boundAt?: Date;
      returnedAt?: Date;
    },
  ) {
    await this.db.query(
      `update mifi_packages set device_sn = case when $2::boolean then $3 else device_sn end, device_order_status = coalesce($4, device_order_status),
         pickup_state = coalesce($5, pickup_state), pickup_msg = case when $6::boolean then $7 else pickup_msg end,
         eject_command_id = coalesce($8, eject_command_id), hold_transfer_id = coalesce($9, hold_transfer_id), deposit = coalesce($10, deposit),
         deposit_payment_id = coalesce($11, deposit_payment_id), deposit_captured = coalesce($12, deposit_captured),
         bound_at = coalesce($13, bound_at), returned_at = coalesce($14, returned_at) where id = $1`,
      [
        id,
        f.sn !== undefined,
        f.sn ?? null,
        f.deviceOrderStatus ?? null,
        f.pickupState ?? null,
        f.pickupMsg !== undefined,
        f.pickupMsg ?? null,
        f.ejectCommandId ?? null,
        f.holdTransferId ?? null,
        f.deposit ?? null,
        f.depositPaymentId ?? null,
        f.depositCaptured ?? null,
        f.boundAt ?? null,
        f.returnedAt ?? null,
      ],
    );
  }

  /** Keeps a payment that waits for its customer; false when it was kept already (a replayed call answering the same). */
  async insertAction(a: ActionRow) {
    const res = await this.db.query(
      `insert into mifi_payment_actions (provider, ref, user_id, order_id, package_id, amount, currency, capture, created_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9) on conflict (provider, ref) do nothing`,
      [a.provider, a.ref, a.user_id, a.order_id, a.package_id, a.amount, a.currency, a.capture, a.created_at],
    );
    return res.rowCount === 1;
  }

  /** A payment waiting for its customer, by the provider's reference. */
  async action(provider: string, ref: string) {
    const { rows } = await this.db.query<ActionRow>(
      'select * from mifi_payment_actions where provider = $1 and ref = $2',
      [provider, ref],
    );
    return rows[0] ? { ...rows[0], user_id: Number(rows[0].user_id), amount: Number(rows[0].amount) } : undefined;
  }

  /** The package waiting for this eject command. */
  async byCommand(commandId: string) {
    const { rows } = await this.db.query<PackageRow>(`${PKG_SELECT} where k.eject_command_id = $1`, [commandId]);
    return rows[0] ? num(rows[0]) : undefined;
  }

  /** The package holding the box's deposit (device with the user). */
  async holderOf(sn: string) {
    const { rows } = await this.db.query<PackageRow>(
      `${PKG_SELECT} where k.device_sn = $1 and k.device_order_status = 1 order by k.created_at limit 1`,
      [sn],
    );
    return rows[0] ? num(rows[0]) : undefined;
  }

  /** Packages due to activate (start passed) or end (end passed). */
  async due(now: Date) {
    const { rows } = await this.db.query<{ id: string; status: number }>(
      `select id, status from mifi_packages where (status = 1 and start_at <= $1) or (status = 2 and end_at <= $1) order by id limit 500`,
      [now],
    );
    return rows;
  }

  async toActivateOnTraffic(sn: string) {
    const { rows } = await this.db.query<{ id: string }>(
      `select id from mifi_packages where device_sn = $1 and status = 1 order by start_at limit 1`,
      [sn],
    );
    return rows[0]?.id;
  }
}
