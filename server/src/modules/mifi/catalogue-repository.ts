// The Wi-Fi package catalogue: the shop's reads (regions, SKUs in a currency, the box deposit) and its editing
// as the fleet's operations create and change it (modules/mifi/catalogue-admin.ts).
import type { Queryable } from '../../db/db.ts';

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

const SKU_SELECT = `select s.id, s.region_id, r.name as region_name, s.country_code, c.name as country_name, c.time_zone,
       coalesce(c.flag_url, r.flag_url) as flag_url, s.name, s.names, s.plan_kind, s.plan_value, s.is_package, s.days, p.price, p.currency
  from mifi_skus s join mifi_regions r on r.id = s.region_id left join mifi_countries c on c.code = s.country_code
  join mifi_sku_prices p on p.sku_id = s.id and s.enabled`;

/** The package catalogue: what the shop lists, and what the fleet's operations create and edit. */
export class MifiCatalogueRepository {
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
