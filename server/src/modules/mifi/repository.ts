// The only SQL of the Wi-Fi module: the catalogue, orders and packages, boxes and their telemetry.
import { canMove } from '#core/mifi.ts';
import type { Queryable } from '../../db/db.ts';

function assertMove(from: number, to: number) {
  if (!canMove(from, to)) throw new Error(`package status ${from} → ${to} is not a transition of PACKAGE_TRANSITIONS`);
}

export interface SkuRow {
  id: string;
  region_id: string;
  region_name: string;
  country_code: string | null;
  country_name: string | null;
  time_zone: string | null;
  flag_url: string;
  name: string;
  plan_kind: 'days' | 'unlimited' | 'mb';
  plan_value: number;
  is_package: boolean;
  days: number;
  price: number;
  currency: string;
  /** The name per language (name: the default). */
  names?: Record<string, string> | string;
}
/** What an operator edits of a SKU. */
export interface SkuEditable {
  id: string;
  region_id: string;
  name: string;
  names: Record<string, string>;
  plan_kind: 'days' | 'unlimited' | 'mb';
  plan_value: number;
  is_package: boolean;
  days: number;
  enabled: boolean;
  version: number;
  prices: { currency: string; price: number }[];
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
/** A Wi-Fi box: its network, and a new password while the box has not confirmed it (docs/cabinet-protocol.md). */
export interface BoxRow {
  sn: string;
  ssid: string;
  password: string;
  pending_password: string | null;
  password_command_id: string | null;
  password_changed_at: Date | null;
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

const SKU_SELECT = `select s.id, s.region_id, r.name as region_name, s.country_code, c.name as country_name, c.time_zone,
       coalesce(c.flag_url, r.flag_url) as flag_url, s.name, s.names, s.plan_kind, s.plan_value, s.is_package, s.days, p.price, p.currency
  from mifi_skus s join mifi_regions r on r.id = s.region_id left join mifi_countries c on c.code = s.country_code
  join mifi_sku_prices p on p.sku_id = s.id and s.enabled`;
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

  /** The box deposit set for a currency in the console (undefined: none set). */
  async boxDeposit(currency: string): Promise<number | undefined> {
    const { rows } = await this.db.query<{ amount: string | number }>(
      'select amount from mifi_box_deposits where currency = $1',
      [currency],
    );
    return rows[0] ? Number(rows[0].amount) : undefined;
  }

  /** Catalogue entries in a currency, filtered by a keyword (package, country or region name) or a country / region. */
  async skus(f: { currency: string; q: string; country?: string; region?: string; limit: number; offset: number }) {
    const where = `where p.currency = $1 and ($2 = '' or s.name ilike $2 or c.name ilike $2 or r.name ilike $2 or s.country_code ilike $3)
      and ($4::text is null or s.country_code = $4) and ($5::text is null or s.region_id = $5)`;
    const like = f.q ? `%${f.q.replace(/[%_\\]/g, (m) => `\\${m}`)}%` : '';
    const args = [f.currency, like, f.q, f.country ?? null, f.region ?? null];
    const { rows } = await this.db.query<SkuRow>(
      `${SKU_SELECT} ${where} order by r.sort, c.name nulls first, s.id limit $6 offset $7`,
      [...args, f.limit, f.offset],
    );
    const { rows: n } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from mifi_skus s join mifi_regions r on r.id = s.region_id left join mifi_countries c on c.code = s.country_code
         join mifi_sku_prices p on p.sku_id = s.id and s.enabled ${where}`,
      args,
    );
    return { rows: rows.map((r) => ({ ...r, price: Number(r.price) })), total: Number(n[0]?.n ?? 0) };
  }

  async sku(id: string, currency: string) {
    const { rows } = await this.db.query<SkuRow>(`${SKU_SELECT} where s.id = $1 and p.currency = $2`, [id, currency]);
    return rows[0] ? { ...rows[0], price: Number(rows[0].price) } : undefined;
  }

  /** The same SKU name's plans in a region or country (the package-variant dialog). */
  async variants(skuId: string, currency: string) {
    const { rows } = await this.db.query<SkuRow>(
      `${SKU_SELECT} where p.currency = $2 and s.name = (select name from mifi_skus where id = $1)
         and s.region_id = (select region_id from mifi_skus where id = $1)
         and s.country_code is not distinct from (select country_code from mifi_skus where id = $1) order by s.days, s.id`,
      [skuId, currency],
    );
    return rows.map((r) => ({ ...r, price: Number(r.price) }));
  }

  async regions() {
    const { rows } = await this.db.query<{
      id: string;
      name: string;
      flag_url: string;
      countries: { code: string; name: string; flag_url: string; time_zone: string }[] | string;
    }>(
      `select r.id, r.name, r.flag_url, coalesce((select jsonb_agg(jsonb_build_object('code', c.code, 'name', c.name, 'flag_url', c.flag_url, 'time_zone', c.time_zone) order by c.name)
          from mifi_countries c where c.region_id = r.id), '[]'::jsonb) as countries from mifi_regions r order by r.sort, r.name`,
    );
    return rows.map((r) => ({
      ...r,
      countries:
        typeof r.countries === 'string'
          ? (JSON.parse(r.countries) as { code: string; name: string; flag_url: string; time_zone: string }[])
          : r.countries,
    }));
  }

  async regionZones(regionId: string) {
    const { rows } = await this.db.query<{ time_zone: string }>(
      'select distinct time_zone from mifi_countries where region_id = $1 order by time_zone',
      [regionId],
    );
    return rows.map((r) => r.time_zone);
  }

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

/** The package catalogue and the boxes as the fleet's operations create them (modules/mifi/catalogue-admin.ts). */
export class MifiCatalogueRepository {
  constructor(private readonly db: Queryable) {}

  /** A region and its countries; false when the region id is taken. */
  async insertRegion(
    r: { id: string; name: string; flagUrl: string; sort: number },
    countries: { code: string; name: string; timeZone: string; flagUrl: string }[],
  ) {
    const res = await this.db.query(
      'insert into mifi_regions (id, name, flag_url, sort) values ($1, $2, $3, $4) on conflict (id) do nothing',
      [r.id, r.name, r.flagUrl, r.sort],
    );
    if (res.rowCount !== 1) return false;
    for (const c of countries) {
      await this.db.query(
        'insert into mifi_countries (code, name, region_id, time_zone, flag_url) values ($1, $2, $3, $4, $5)',
        [c.code, c.name, r.id, c.timeZone, c.flagUrl],
      );
    }
    return true;
  }

  /** Which of these country codes exist (anywhere), and whether the region exists. */
  async known(regionId: string, countries: string[]) {
    const { rows } = await this.db.query<{ code: string }>('select code from mifi_countries where code = any($1)', [
      countries,
    ]);
    const { rows: r } = await this.db.query('select 1 from mifi_regions where id = $1', [regionId]);
    return { region: r.length === 1, countries: new Set(rows.map((x) => x.code.trim())) };
  }

  async countryRegion(code: string) {
    const { rows } = await this.db.query<{ region_id: string }>(
      'select region_id from mifi_countries where code = $1',
      [code],
    );
    return rows[0]?.region_id;
  }

  /** A SKU's editable fields as they are now (undefined: no such SKU), locked for the change. */
  async skuForUpdate(id: string) {
    const { rows } = await this.db.query<SkuEditable>(
      `select s.id, s.region_id, s.name, s.names, s.plan_kind, s.plan_value, s.is_package, s.days, s.enabled, s.version,
              coalesce((select jsonb_agg(jsonb_build_object('currency', p.currency, 'price', p.price) order by p.currency) from mifi_sku_prices p where p.sku_id = s.id), '[]'::jsonb) as prices
         from mifi_skus s where s.id = $1 for update`,
      [id],
    );
    const r = rows[0];
    if (!r) return undefined;
    const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
    return {
      ...r,
      names: json(r.names),
      prices: json(r.prices).map((x) => ({ currency: x.currency, price: Number(x.price) })),
    };
  }

  /** Saves a SKU's fields while it is still at `version` (false: someone saved in between); prices, when given, replace all. */
  async updateSku(
    id: string,
    version: number,
    s: Omit<SkuEditable, 'id' | 'region_id' | 'version' | 'prices'>,
    prices?: { currency: string; price: number }[],
  ) {
    const res = await this.db.query(
      `update mifi_skus set name = $3, names = $4, plan_kind = $5, plan_value = $6, is_package = $7, days = $8, enabled = $9, version = version + 1
        where id = $1 and version = $2`,
      [id, version, s.name, JSON.stringify(s.names), s.plan_kind, s.plan_value, s.is_package, s.days, s.enabled],
    );
    if (res.rowCount !== 1) return false;
    if (prices) {
      await this.db.query('delete from mifi_sku_prices where sku_id = $1', [id]);
      for (const p of prices)
        await this.db.query('insert into mifi_sku_prices (sku_id, currency, price) values ($1, $2, $3)', [
          id,
          p.currency,
          p.price,
        ]);
    }
    return true;
  }

  /** A SKU with its price per currency; false when the id is taken. */
  async insertSku(
    s: {
      id: string;
      regionId: string;
      countryCode: string | null;
      name: string;
      planKind: string;
      planValue: number;
      isPackage: boolean;
      days: number;
    },
    prices: { currency: string; price: number }[],
  ) {
    const res = await this.db.query(
      `insert into mifi_skus (id, region_id, country_code, name, plan_kind, plan_value, is_package, days) values ($1,$2,$3,$4,$5,$6,$7,$8) on conflict (id) do nothing`,
      [s.id, s.regionId, s.countryCode, s.name, s.planKind, s.planValue, s.isPackage, s.days],
    );
    if (res.rowCount !== 1) return false;
    for (const p of prices)
      await this.db.query('insert into mifi_sku_prices (sku_id, currency, price) values ($1, $2, $3)', [
        s.id,
        p.currency,
        p.price,
      ]);
    return true;
  }

  /** A box; false when the serial is taken. */
  async insertBox(b: { sn: string; ssid: string; password: string }) {
    const res = await this.db.query(
      'insert into mifi_boxes (sn, ssid, password) values ($1, $2, $3) on conflict (sn) do nothing',
      [b.sn, b.ssid, b.password],
    );
    return res.rowCount === 1;
  }
}
