// The Wi-Fi line's tables as the back office reads them: a page of SKUs with their prices, a page of boxes with
// the cabinet slot each sits in (in scope by that cabinet's agent; a box in no cabinet only platform-wide), and
// the box deposit per currency.
import type { Queryable } from '../../db/db.ts';
import { orderBy, type SortSpec } from '../../lib/ops-query.ts';
import { scopeSql, type ScopeParams } from '../../lib/ops-query.ts';

const SCOPE_SQL = scopeSql('c.agent_id', 'c.venue_id');

const SKU_SORT: SortSpec = { id: 's.id', name: 's.name' };
const BOX_SORT: SortSpec = { sn: 'b.sn', ssid: 'b.ssid' };
const like = (q: string | undefined) => (q ? `%${q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` : null);

export interface SkuOpsRow {
  id: string;
  region_id: string;
  country_code: string | null;
  name: string;
  plan_kind: string;
  plan_value: number;
  is_package: boolean;
  days: number;
  prices: { currency: string; price: number }[] | string;
  sort_key: string;
  names: Record<string, string> | string;
  enabled: boolean;
  version: number;
}
export interface BoxOpsRow {
  sn: string;
  ssid: string;
  cabinet_id: string | null;
  slot: number | null;
  state: string | null;
  pending: boolean;
  password_changed_at: Date | null;
  sort_key: string;
  agent_id: string | null;
}

export interface BoxDepositRow {
  currency: string;
  amount: number;
  version: number;
  updated_at: Date;
}

export class MifiOpsRepository {
  constructor(private readonly db: Queryable) {}

  async skus(f: {
    regionId?: string;
    q?: string;
    sort?: string;
    after?: [string, string];
    limit: number;
  }): Promise<SkuOpsRow[]> {
    const order = orderBy(SKU_SORT, f.sort, 's.id');
    const params: unknown[] = [f.regionId ?? null, like(f.q), f.limit];
    const after = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, s.id) ${order.desc ? '<' : '>'} ($4, $5)`)
      : '';
    const { rows } = await this.db.query<SkuOpsRow>(
      `select s.id, s.region_id, s.country_code, s.name, s.names, s.enabled, s.version, s.plan_kind, s.plan_value, s.is_package, s.days, ${order.key} as sort_key,
              coalesce((select jsonb_agg(jsonb_build_object('currency', p.currency, 'price', p.price) order by p.currency)
                          from mifi_sku_prices p where p.sku_id = s.id), '[]'::jsonb) as prices
         from mifi_skus s
        where ($1::text is null or s.region_id = $1) and ($2::text is null or lower(s.id) like $2 or lower(s.name) like $2) ${after}
        order by ${order.sql} limit $3`,
      params,
    );
    return rows;
  }

  async boxes(f: {
    scope: ScopeParams;
    q?: string;
    cabinetId?: string;
    sn?: string;
    sort?: string;
    after?: [string, string];
    limit: number;
  }): Promise<BoxOpsRow[]> {
    const order = orderBy(BOX_SORT, f.sort, 'b.sn');
    const params: unknown[] = [f.scope.agents, f.scope.pairs, like(f.q), f.cabinetId ?? null, f.sn ?? null, f.limit];
    const after = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, b.sn) ${order.desc ? '<' : '>'} ($7, $8)`)
      : '';
    const { rows } = await this.db.query<BoxOpsRow>(
      `select b.sn, b.ssid, p.cabinet_id, p.slot, p.state, b.pending_password is not null as pending, b.password_changed_at,
              c.agent_id, ${order.key} as sort_key
         from mifi_boxes b left join powerbanks p on p.id = b.sn left join cabinets c on c.id = p.cabinet_id
        where ${SCOPE_SQL} and ($1::text[] is null or c.id is not null)
          and ($3::text is null or lower(b.sn) like $3 or lower(b.ssid) like $3)
          and ($4::text is null or p.cabinet_id = $4) and ($5::text is null or b.sn = $5) ${after}
        order by ${order.sql} limit $6`,
      params,
    );
    return rows;
  }

  /** The box deposit per currency, as set in the console. */
  async boxDeposits(): Promise<BoxDepositRow[]> {
    const { rows } = await this.db.query<BoxDepositRow>(
      'select currency, amount, version, updated_at from mifi_box_deposits order by currency',
    );
    return rows.map((r) => ({ ...r, amount: Number(r.amount) }));
  }

  /**
   * Sets a currency's box deposit: a new currency when `version` is null (false if it already has one), else only
   * while the row is still at `version` (false if someone saved in between).
   */
  async setBoxDeposit(currency: string, amount: number, version: number | null, at: Date): Promise<boolean> {
    const { rowCount } =
      version === null
        ? await this.db.query(
            'insert into mifi_box_deposits (currency, amount, updated_at) values ($1, $2, $3) on conflict (currency) do nothing',
            [currency, amount, at],
          )
        : await this.db.query(
            'update mifi_box_deposits set amount = $2, version = version + 1, updated_at = $3 where currency = $1 and version = $4',
            [currency, amount, at, version],
          );
    return rowCount > 0;
  }

  async cabinet(id: string) {
    const { rows } = await this.db.query<{ agent_id: string | null; venue_id: string | null }>(
      'select agent_id, venue_id from cabinets where id = $1',
      [id],
    );
    return rows[0];
  }

  // ---- regions (their changes; creation is the catalogue's) ----

  async regionVersion(id: string): Promise<number | undefined> {
    const { rows } = await this.db.query<{ version: number }>(
      'select version from mifi_regions where id = $1 for update',
      [id],
    );
    return rows[0]?.version;
  }

  async regionVersions(): Promise<Map<string, number>> {
    const { rows } = await this.db.query<{ id: string; version: number }>('select id, version from mifi_regions');
    return new Map(rows.map((r) => [r.id, r.version]));
  }

  /** Of these country codes, those in another region, and those of this region that a package is sold for. */
  async countryUse(regionId: string, codes: string[]) {
    const { rows: elsewhere } = await this.db.query<{ code: string }>(
      'select code from mifi_countries where code = any($1) and region_id <> $2',
      [codes, regionId],
    );
    const { rows: sold } = await this.db.query<{ code: string }>(
      'select distinct country_code as code from mifi_skus where region_id = $1 and country_code is not null',
      [regionId],
    );
    return { elsewhere: new Set(elsewhere.map((r) => r.code)), sold: new Set(sold.map((r) => r.code)) };
  }

  /** Saves the region's name and countries (replaced whole) while it is still at `version`: false otherwise. */
  async updateRegion(
    id: string,
    version: number,
    name: string,
    countries: { code: string; name: string; timeZone: string; flagUrl: string }[],
  ): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'update mifi_regions set name = $3, version = version + 1 where id = $1 and version = $2',
      [id, version, name],
    );
    if (rowCount !== 1) return false;
    await this.db.query('delete from mifi_countries where region_id = $1 and not (code = any($2))', [
      id,
      countries.map((c) => c.code),
    ]);
    for (const c of countries) {
      await this.db.query(
        `insert into mifi_countries (code, name, region_id, time_zone, flag_url) values ($1, $2, $3, $4, $5)
         on conflict (code) do update set name = excluded.name, time_zone = excluded.time_zone, flag_url = excluded.flag_url`,
        [c.code, c.name, id, c.timeZone, c.flagUrl],
      );
    }
    return true;
  }
}
