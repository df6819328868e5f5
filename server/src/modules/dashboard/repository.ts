// The dashboard's SQL (migrations/20261221120000_dashboard.sql, 20270103120100_dashboard_agent_daily.sql,
// 20270123120000_dashboard_running_sums.sql):
// recomputing the marked buckets of the summaries from the rentals (a read model of orders, venues, cabinets and
// power banks) and the per-agent rollup from them, and the console's reads, which touch only the summaries (and one
// venue's row, for its scope).
import type { Queryable } from '../../db/db.ts';

export interface DashboardFilter {
  from: string;
  to: string;
  /** null: every agent. */
  agents: string[] | null;
  /** `agent/venue` pairs a venue partner sees beside `agents`. */
  pairs: string[];
  venueId: string | null;
}

export interface DailyRow {
  day: string;
  currency: string;
  rentals: number;
  failed_ejects: number;
  returns: number;
  returns_elsewhere: number;
  rented_minutes: number;
  revenue: number;
}
export interface FleetRow {
  day: string;
  powerbanks: number;
}
/** A top venue's figures in one currency. */
export interface VenueRow {
  venue_id: string;
  agent_id: string;
  currency: string;
  rentals: number;
  rented_minutes: number;
  revenue: number;
}

/** The rentals that count towards a bucket: started in it (by creation) or ended in it (returned or bought out). */
const ENDED = 'coalesce(o.returned_at, o.bought_out_at)';
const DAY_START = `(b.day::timestamp at time zone 'UTC')`;
const DAY_END = `((b.day + 1)::timestamp at time zone 'UTC')`;
/**
 * The summaries' rows of the filter, as SQL and its parameters: only the conditions the filter has, so each shape
 * is its own prepared statement whose plan uses the indexes (an `$n is null or …` condition would not).
 */
function where(f: DashboardFilter, extra: unknown[] = []): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.from, f.to, ...extra];
  const conds = [DAY_RANGE];
  const p = (v: unknown) => `$${params.push(v)}`;
  // A venue partner's pairs also by venue alone, so the venue index finds their rows.
  if (f.agents !== null && !f.pairs.length) conds.push(`d.agent_id = any(${p(f.agents)}::text[])`);
  else if (f.agents !== null) {
    const venues = f.pairs.map((x) => x.slice(x.indexOf('/') + 1));
    conds.push(`(d.agent_id = any(${p(f.agents)}::text[])
      or (d.venue_id = any(${p(venues)}::text[]) and (d.agent_id || '/' || d.venue_id) = any(${p(f.pairs)}::text[])))`);
  }
  if (f.venueId) conds.push(`d.venue_id = ${p(f.venueId)}`);
  return { sql: conds.join(' and '), params };
}

/** A summary row a recomputation replaced or wrote. */
interface Touched {
  agent_id: string;
  venue_id: string;
  day: string;
}

/** Whole agents (the platform, an agent) read the per-agent rollups; a venue partner's or one venue's, the venues' rows. */
const wholeAgents = (f: DashboardFilter) => !f.venueId && !f.pairs.length;

/** The first condition of every `where`: the range of days. */
const DAY_RANGE = 'd.day between $1::date and $2::date';

export class DashboardRepository {
  constructor(private readonly db: Queryable) {}

  /** One refresh at a time (a second waits, then finds the marks gone). */
  async lockRefresh() {
    await this.db.query(`select pg_advisory_xact_lock(hashtext('dashboard.refresh'))`);
  }

  /** The oldest marks, at most `limit`. */
  async marks(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('select id from dashboard_dirty order by id limit $1', [
      limit,
    ]);
    return rows.map((r) => String(r.id));
  }

  /** Recomputes the buckets of these marks from the rentals (replacing their rows) and deletes the marks. */
  async recompute(ids: string[]) {
    const buckets = `b as (select distinct venue_id, day from dashboard_dirty where id = any($1::bigint[]))`;
    const { rows: gone } = await this.db.query<Touched>(
      `with ${buckets} delete from dashboard_daily d using b where d.venue_id = b.venue_id and d.day = b.day
       returning d.agent_id, d.venue_id, to_char(d.day, 'YYYY-MM-DD') as day`,
      [ids],
    );
    const { rows: made } = await this.db.query<Touched>(
      `with ${buckets},
       started as (
         select o.venue_id, b.day, o.currency,
           count(*) filter (where o.borrowed_at is not null) as rentals,
           count(*) filter (where o.zujie = 2 and o.note like 'eject %') as failed_ejects
         from b join orders o on o.venue_id = b.venue_id and o.created_at >= ${DAY_START} and o.created_at < ${DAY_END}
         group by 1, 2, 3),
       ended as (
         select o.venue_id, b.day, o.currency, count(*) as returns,
           count(*) filter (where rc.venue_id is distinct from o.venue_id and o.returned_at is not null) as returns_elsewhere,
           coalesce(sum(o.fee), 0) as revenue, coalesce(sum(o.use_minutes), 0) as rented_minutes
         from b join orders o on o.venue_id = b.venue_id and ${ENDED} >= ${DAY_START} and ${ENDED} < ${DAY_END}
         left join cabinets rc on rc.id = o.return_cabinet_id
         group by 1, 2, 3)
       insert into dashboard_daily (agent_id, venue_id, day, currency, rentals, failed_ejects, returns, returns_elsewhere, revenue, rented_minutes)
       select coalesce(v.agent_id, 'powerly'), s.venue_id, s.day, s.currency, s.rentals, s.failed_ejects, s.returns, s.returns_elsewhere, s.revenue, s.rented_minutes
       from (
         select coalesce(st.venue_id, en.venue_id) as venue_id, coalesce(st.day, en.day) as day, coalesce(st.currency, en.currency) as currency,
           coalesce(st.rentals, 0) as rentals, coalesce(st.failed_ejects, 0) as failed_ejects, coalesce(en.returns, 0) as returns,
           coalesce(en.returns_elsewhere, 0) as returns_elsewhere, coalesce(en.revenue, 0) as revenue, coalesce(en.rented_minutes, 0) as rented_minutes
         from started st full join ended en on en.venue_id = st.venue_id and en.day = st.day and en.currency = st.currency
       ) s join venues v on v.id = s.venue_id
       returning agent_id, venue_id, to_char(day, 'YYYY-MM-DD') as day`,
      [ids],
    );
    await this.rollUp([...gone, ...made]);
    await this.db.query('delete from dashboard_dirty where id = any($1::bigint[])', [ids]);
  }

  /** Recomputes the rollups of what these rows touched: the agents' days, the venues' months. */
  private async rollUp(touched: Touched[]) {
    if (!touched.length) return;
    const unique = (keys: string[]) => [...new Set(keys)].map((k) => k.split(' ') as [string, string]);
    const days = unique(touched.map((r) => `${r.agent_id} ${r.day}`));
    const byDay = `p as (select * from unnest($1::text[], $2::date[]) as p (agent_id, day))`;
    const dayParams = [days.map((k) => k[0]), days.map((k) => k[1])];
    await this.db.query(
      `with ${byDay} delete from dashboard_agent_daily a using p where a.agent_id = p.agent_id and a.day = p.day`,
      dayParams,
    );
    await this.db.query(
      `with ${byDay}
       insert into dashboard_agent_daily (agent_id, day, currency, rentals, failed_ejects, returns, returns_elsewhere, revenue, rented_minutes)
       select d.agent_id, d.day, d.currency, sum(d.rentals), sum(d.failed_ejects), sum(d.returns), sum(d.returns_elsewhere), sum(d.revenue), sum(d.rented_minutes)
         from p join dashboard_daily d on d.agent_id = p.agent_id and d.day = p.day
        group by d.agent_id, d.day, d.currency`,
      dayParams,
    );
    const months = unique(touched.map((r) => `${r.venue_id} ${r.day.slice(0, 7)}-01`));
    const byMonth = `p as (select * from unnest($1::text[], $2::date[]) as p (venue_id, month))`;
    const monthParams = [months.map((k) => k[0]), months.map((k) => k[1])];
    await this.db.query(
      `with ${byMonth} delete from dashboard_venue_monthly m using p where m.venue_id = p.venue_id and m.month = p.month`,
      monthParams,
    );
    await this.db.query(
      `with ${byMonth}
       insert into dashboard_venue_monthly (agent_id, venue_id, month, currency, rentals, rented_minutes, revenue)
       select min(d.agent_id), d.venue_id, p.month, d.currency, sum(d.rentals), sum(d.rented_minutes), sum(d.revenue)
         from p join dashboard_daily d on d.venue_id = p.venue_id and d.day >= p.month and d.day < (p.month + interval '1 month')
        group by d.venue_id, p.month, d.currency`,
      monthParams,
    );
    await this.runningSums(touched);
  }

  /** Rewrites the venues' running sums from the earliest day this batch touched, on the last sum before it. */
  private async runningSums(touched: Touched[]) {
    const since = new Map<string, string>();
    for (const r of touched) if (!since.has(r.venue_id) || r.day < since.get(r.venue_id)!) since.set(r.venue_id, r.day);
    const bySince = `p as (select * from unnest($1::text[], $2::date[]) as p (venue_id, since))`;
    const params = [[...since.keys()], [...since.values()]];
    await this.db.query(
      `with ${bySince} delete from dashboard_venue_running r using p where r.venue_id = p.venue_id and r.day >= p.since`,
      params,
    );
    await this.db.query(
      `with ${bySince}
       insert into dashboard_venue_running (agent_id, venue_id, currency, day, buckets, rentals, rented_minutes, revenue)
       select d.agent_id, d.venue_id, d.currency, d.day, coalesce(b.buckets, 0) + count(*) over w, coalesce(b.rentals, 0) + sum(d.rentals) over w,
         coalesce(b.rented_minutes, 0) + sum(d.rented_minutes) over w, coalesce(b.revenue, 0) + sum(d.revenue) over w
         from p join dashboard_daily d on d.venue_id = p.venue_id and d.day >= p.since
         left join lateral (
           select r.buckets, r.rentals, r.rented_minutes, r.revenue from dashboard_venue_running r
            where r.venue_id = d.venue_id and r.currency = d.currency and r.day < p.since order by r.day desc limit 1) b on true
       window w as (partition by d.venue_id, d.currency order by d.day)`,
      params,
    );
  }

  /** Today's cabinets and power banks per venue (kept for utilisation). */
  async snapshotFleet(day: string) {
    await this.db.query(
      `insert into dashboard_fleet_daily (agent_id, venue_id, day, cabinets, powerbanks)
       select coalesce(v.agent_id, 'powerly'), v.id, $1::date, count(distinct c.id), count(p.id)
       from venues v left join cabinets c on c.venue_id = v.id left join powerbanks p on p.cabinet_id = c.id
       group by v.id, v.agent_id
       on conflict (venue_id, day) do update set agent_id = excluded.agent_id, cabinets = excluded.cabinets, powerbanks = excluded.powerbanks`,
      [day],
    );
    await this.db.query('delete from dashboard_agent_fleet_daily where day = $1::date', [day]);
    await this.db.query(
      `insert into dashboard_agent_fleet_daily (agent_id, day, powerbanks)
       select agent_id, day, sum(powerbanks) from dashboard_fleet_daily where day = $1::date group by agent_id, day`,
      [day],
    );
  }

  async markRefreshed(at: Date) {
    await this.db.query('update dashboard_state set refreshed_at = $1 where id', [at]);
  }

  async state(): Promise<{ refreshed_at: Date | null; pending: number }> {
    const { rows } = await this.db.query<{ refreshed_at: Date | null; pending: number }>(
      `select s.refreshed_at, (select count(*)::int from dashboard_dirty) as pending from dashboard_state s`,
    );
    return rows[0] ?? { refreshed_at: null, pending: 0 };
  }

  /** A venue's agent (the scope of a venue filter). */
  async venueAgent(venueId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ agent_id: string }>(
      `select coalesce(agent_id, 'powerly') as agent_id from venues where id = $1`,
      [venueId],
    );
    return rows[0]?.agent_id;
  }

  /** Per day and currency: every figure of the summaries (the days' totals add up the currencies). */
  async daily(f: DashboardFilter): Promise<DailyRow[]> {
    const w = where(f);
    const { rows } = await this.db.query<DailyRow>(
      `select to_char(d.day, 'YYYY-MM-DD') as day, d.currency, sum(d.rentals)::int as rentals, sum(d.failed_ejects)::int as failed_ejects,
         sum(d.returns)::int as returns, sum(d.returns_elsewhere)::int as returns_elsewhere, sum(d.rented_minutes)::bigint as rented_minutes,
         sum(d.revenue)::bigint as revenue
       from ${wholeAgents(f) ? 'dashboard_agent_daily' : 'dashboard_daily'} d where ${w.sql} group by d.day, d.currency order by d.day, d.currency`,
      w.params,
    );
    return rows.map((r) => ({ ...r, rented_minutes: Number(r.rented_minutes), revenue: Number(r.revenue) }));
  }

  /** The power banks per day; without a count in the range (before the first refresh), the nearest day's. */
  async fleet(f: DashboardFilter): Promise<FleetRow[]> {
    const table = wholeAgents(f) ? 'dashboard_agent_fleet_daily' : 'dashboard_fleet_daily';
    const w = where(f);
    const { rows } = await this.db.query<FleetRow>(
      `select to_char(d.day, 'YYYY-MM-DD') as day, sum(d.powerbanks)::int as powerbanks
       from ${table} d where ${w.sql} group by d.day order by d.day`,
      w.params,
    );
    if (rows.length) return rows;
    const n = where({ ...f, from: '0001-01-01', to: '9999-12-31' }, [f.from]);
    const { rows: near } = await this.db.query<FleetRow>(
      `select to_char(d.day, 'YYYY-MM-DD') as day, sum(d.powerbanks)::int as powerbanks
       from ${table} d where ${n.sql} group by d.day order by abs(d.day - $3::date), d.day limit 1`,
      n.params,
    );
    return near;
  }

  /**
   * The venues with the most rentals, and their figures per currency: the venues (and currencies) with a month of the
   * range in the monthly rollup, each venue's totals as the difference of two running sums (the last at or before the
   * range's end, the last before its start); a venue counts when it had a daily row in the range.
   */
  async topVenues(f: DashboardFilter, limit: number): Promise<VenueRow[]> {
    const w = where(f, [limit]);
    const diff = (c: string, type: string) => `(e.${c} - coalesce(s.${c}, 0))::${type} as ${c}`;
    const last = (
      cond: string,
    ) => `select r.buckets, r.rentals, r.rented_minutes, r.revenue from dashboard_venue_running r
       where r.venue_id = k.venue_id and r.currency = k.currency and ${cond} order by r.day desc limit 1`;
    const { rows } = await this.db.query<VenueRow>(
      `with k as (
         select d.venue_id, d.currency, min(d.agent_id) as agent_id from dashboard_venue_monthly d
          where ${w.sql.replace(DAY_RANGE, `d.month between date_trunc('month', $1::date)::date and $2::date`)} group by d.venue_id, d.currency),
       v as (
         select k.venue_id, k.agent_id, k.currency, ${diff('rentals', 'int')}, ${diff('rented_minutes', 'bigint')}, ${diff('revenue', 'bigint')}
           from k join lateral (${last('r.day <= $2::date')}) e on true left join lateral (${last('r.day < $1::date')}) s on true
          where e.buckets > coalesce(s.buckets, 0)),
       top as (select venue_id, sum(rentals) as rentals from v group by venue_id order by sum(rentals) desc, venue_id limit $3)
       select v.* from v join top using (venue_id) order by top.rentals desc, v.venue_id, v.currency`,
      w.params,
    );
    return rows.map((r) => ({ ...r, rented_minutes: Number(r.rented_minutes), revenue: Number(r.revenue) }));
  }
}
