// The operator dashboard (docs/operations.md "Dashboard"): summaries per venue (so per agent), UTC day and currency,
// kept in step with the rentals by the `dashboard.refresh` job, and the console's figures read from them only.
//
// Never double counting: a change to a rental marks its buckets in its own transaction (a trigger); a refresh
// recomputes each marked bucket from the rentals, replacing its rows, and deletes the marks it read, all in one
// transaction. Running it twice, or after a crash halfway, gives the same figures.
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { scopeParams } from '../../lib/ops-query.ts';
import { DashboardRepository, type DashboardFilter } from './repository.ts';

export const JOB_REFRESH = 'dashboard.refresh';
/** How often the summaries are refreshed. */
export const REFRESH_EVERY_MS = 60_000;
/** Marks recomputed per transaction. */
const BATCH = 5000;
/** The longest range one request reads. */
export const MAX_DAYS = 366;
const TOP_VENUES = 10;
const DAY_MS = 86_400_000;

export interface DashboardDeps {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  /** Default: over `db`. */
  repo?: DashboardRepository;
}

export interface DashboardQuery {
  from?: string;
  to?: string;
  agentId?: string;
  venueId?: string;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const everyDay = (from: string, n: number) =>
  Array.from({ length: n }, (_, i) => isoDay(new Date(Date.parse(`${from}T00:00:00Z`) + i * DAY_MS)));
const empty = (day: string) => ({
  day,
  rentals: 0,
  failed_ejects: 0,
  returns: 0,
  returns_elsewhere: 0,
  rented_minutes: 0,
});
const ratio = (minutes: number, powerbanks: number, days: number) =>
  powerbanks > 0 ? minutes / (powerbanks * days * 1440) : null;

export class DashboardService {
  private readonly d: Required<DashboardDeps>;
  /** The summaries' repository (tests of the refresh). */
  readonly repo: DashboardRepository;

  constructor(deps: DashboardDeps) {
    const d = { ...deps, repo: deps.repo ?? new DashboardRepository(deps.db) };
    this.d = d;
    this.repo = d.repo;
    d.jobs.register(JOB_REFRESH, async (_p, job) => {
      await this.refresh();
      await this.d.jobs.ensurePending(JOB_REFRESH, new Date(this.d.clock.now().getTime() + REFRESH_EVERY_MS), job.id);
    });
  }

  /** Starts the recurring refresh (once per installation: a pending one is kept). */
  schedule() {
    return this.d.jobs.ensurePending(JOB_REFRESH, this.d.clock.now());
  }

  /** Recomputes every marked bucket, a batch per transaction, and takes today's fleet counts. Returns the marks done. */
  async refresh(): Promise<number> {
    let done = 0;
    for (;;) {
      const n = await this.d.db.tx(async () => {
        await this.d.repo.lockRefresh();
        const ids = await this.d.repo.marks(BATCH);
        if (ids.length) await this.d.repo.recompute(ids);
        return ids.length;
      });
      done += n;
      if (n < BATCH) break;
    }
    await this.d.db.tx(async () => {
      await this.d.repo.lockRefresh();
      await this.d.repo.snapshotFleet(isoDay(this.d.clock.now()));
      await this.d.repo.markRefreshed(this.d.clock.now());
    });
    return done;
  }

  /** The dashboard's figures for the caller's scope, narrowed to an agent and a venue (outside the scope: 404). */
  async read(scope: Scope, q: DashboardQuery) {
    const to = q.to ?? isoDay(this.d.clock.now());
    const from = q.from ?? isoDay(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
    const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
    if (!(days >= 1)) throw badRequest('error.dashboard.range');
    if (days > MAX_DAYS) throw badRequest('error.dashboard.tooLong', { max: MAX_DAYS });
    const f = await this.narrow(scope, { from, to }, q);
    const [daily, fleet, top, state] = await Promise.all([
      this.d.repo.daily(f),
      this.d.repo.fleet(f),
      this.d.repo.topVenues(f, TOP_VENUES),
      this.d.repo.state(),
    ]);
    return shape(from, to, days, daily, fleet, top, state);
  }

  /** The caller's scope narrowed to an agent and a venue (either outside it: 404). */
  async narrow(
    scope: Scope,
    range: { from: string; to: string },
    q: Pick<DashboardQuery, 'agentId' | 'venueId'>,
  ): Promise<DashboardFilter> {
    const p = scopeParams(scope);
    const f: DashboardFilter = { ...range, agents: p.agents, pairs: p.pairs, venueId: q.venueId ?? null };
    if (q.agentId) {
      // A venue partner's agent is in its scope (narrowed to its venues by the pairs).
      if (scope.kind !== 'all' && !(scope.kind === 'agents' && scope.agents.includes(q.agentId)))
        throw notFound('error.notFound');
      f.agents = p.agents === null || p.agents.includes(q.agentId) ? [q.agentId] : [];
      f.pairs = p.pairs.filter((x) => x.startsWith(`${q.agentId}/`));
    }
    if (q.venueId) {
      const agent = await this.d.repo.venueAgent(q.venueId);
      if (!agent || !inScope(scope, agent, q.venueId) || (q.agentId && agent !== q.agentId))
        throw notFound('error.notFound');
    }
    return f;
  }
}

type Rows<K extends 'daily' | 'fleet' | 'topVenues' | 'state'> = Awaited<ReturnType<DashboardRepository[K]>>;

/** The answer of a read, from the summaries' rows. */
function shape(
  from: string,
  to: string,
  days: number,
  daily: Rows<'daily'>,
  fleet: Rows<'fleet'>,
  top: Rows<'topVenues'>,
  state: Rows<'state'>,
) {
  const byDay = new Map<string, ReturnType<typeof empty>>();
  for (const r of daily) {
    const t = byDay.get(r.day) ?? empty(r.day);
    byDay.set(r.day, {
      day: r.day,
      rentals: t.rentals + r.rentals,
      failed_ejects: t.failed_ejects + r.failed_ejects,
      returns: t.returns + r.returns,
      returns_elsewhere: t.returns_elsewhere + r.returns_elsewhere,
      rented_minutes: t.rented_minutes + r.rented_minutes,
    });
  }
  const series = everyDay(from, days).map((day) => byDay.get(day) ?? empty(day));
  const banksOn = new Map(fleet.map((r) => [r.day, Number(r.powerbanks)]));
  // A day without a count of its own takes the latest earlier one (the fleet changes slowly), else the first.
  const banksOf = (day: string) =>
    banksOn.get(day) ?? [...fleet].reverse().find((r) => r.day < day)?.powerbanks ?? fleet[0]?.powerbanks ?? 0;
  const totals = series.reduce(
    (t, r) => ({
      rentals: t.rentals + r.rentals,
      failedEjects: t.failedEjects + r.failed_ejects,
      returns: t.returns + r.returns,
      returnsElsewhere: t.returnsElsewhere + r.returns_elsewhere,
      rentedMinutes: t.rentedMinutes + r.rented_minutes,
    }),
    { rentals: 0, failedEjects: 0, returns: 0, returnsElsewhere: 0, rentedMinutes: 0 },
  );
  const revenue = daily
    .filter((r) => r.revenue !== 0)
    .map((r) => ({ day: r.day, currency: r.currency, amount: r.revenue }));
  const revenueTotals = new Map<string, number>();
  for (const r of revenue) revenueTotals.set(r.currency, (revenueTotals.get(r.currency) ?? 0) + r.amount);
  const bankDays = series.reduce((n, r) => n + banksOf(r.day), 0);
  const venues = new Map<
    string,
    {
      venueId: string;
      agentId: string;
      rentals: number;
      rentedMinutes: number;
      revenue: { currency: string; amount: number }[];
    }
  >();
  for (const r of top) {
    const v = venues.get(r.venue_id) ?? {
      venueId: r.venue_id,
      agentId: r.agent_id,
      rentals: 0,
      rentedMinutes: 0,
      revenue: [],
    };
    v.rentals += r.rentals;
    v.rentedMinutes += r.rented_minutes;
    if (r.revenue) v.revenue.push({ currency: r.currency, amount: r.revenue });
    venues.set(r.venue_id, v);
  }
  return {
    from,
    to,
    refreshedAt: state.refreshed_at ? new Date(state.refreshed_at).toISOString() : null,
    pending: state.pending,
    days: series.map((r) => ({
      day: r.day,
      rentals: r.rentals,
      failedEjects: r.failed_ejects,
      returns: r.returns,
      returnsElsewhere: r.returns_elsewhere,
      rentedMinutes: r.rented_minutes,
      powerbanks: banksOf(r.day),
      utilisation: ratio(r.rented_minutes, banksOf(r.day), 1),
    })),
    revenue,
    totals: {
      ...totals,
      averageMinutes: totals.returns ? Math.round(totals.rentedMinutes / totals.returns) : null,
      utilisation: bankDays ? totals.rentedMinutes / (bankDays * 1440) : null,
      revenue: [...revenueTotals].map(([currency, amount]) => ({ currency, amount })),
    },
    topVenues: [...venues.values()],
  };
}
