import type { Queryable } from '../../db/db.ts';

export interface AgentRow {
  id: string;
  name: string;
  origins: string[];
}

export interface VitalRow {
  shape: string;
  name: string;
  value: number;
  rating: string;
  route: string;
}

export interface VitalSummary {
  shape: string;
  name: string;
  count: number;
  p75: number;
  good: number;
  needsImprovement: number;
  poor: number;
}

export class EmbedRepository {
  constructor(private readonly db: Queryable) {}

  /** Retention: web-vitals samples recorded before `before`. */
  async sweepVitals(before: Date) {
    return (await this.db.query('delete from web_vitals where created_at < $1', [before])).rowCount;
  }

  async agent(id: string): Promise<AgentRow | undefined> {
    const { rows } = await this.db.query<AgentRow>('select id, name, origins from agents where id = $1', [id]);
    return rows[0];
  }

  async upsertAgent(a: AgentRow): Promise<void> {
    await this.db.query(
      'insert into agents (id, name, origins) values ($1, $2, $3) on conflict (id) do update set name = excluded.name, origins = excluded.origins',
      [a.id, a.name, a.origins],
    );
  }

  async addVital(v: VitalRow): Promise<void> {
    await this.db.query('insert into web_vitals (shape, name, value, rating, route) values ($1, $2, $3, $4, $5)', [
      v.shape,
      v.name,
      v.value,
      v.rating,
      v.route,
    ]);
  }

  async summary(sinceMs: number): Promise<VitalSummary[]> {
    const { rows } = await this.db.query<{
      shape: string;
      name: string;
      count: number;
      p75: number;
      good: number;
      ni: number;
      poor: number;
    }>(
      `select shape, name, count(*)::int as count,
              percentile_cont(0.75) within group (order by value) as p75,
              count(*) filter (where rating = 'good')::int as good,
              count(*) filter (where rating = 'needs-improvement')::int as ni,
              count(*) filter (where rating = 'poor')::int as poor
         from web_vitals where created_at >= to_timestamp($1::double precision / 1000)
        group by shape, name order by shape, name`,
      [sinceMs],
    );
    return rows.map((r) => ({
      shape: r.shape,
      name: r.name,
      count: r.count,
      p75: Math.round(Number(r.p75) * 1000) / 1000,
      good: r.good,
      needsImprovement: r.ni,
      poor: r.poor,
    }));
  }
}

export class EmbedCodesRepository {
  constructor(private readonly db: Queryable) {}

  async create(c: { jti: string; agentId: string; userId: number; expiresAt: Date }): Promise<void> {
    await this.db.query('insert into embed_codes (jti, agent_id, user_id, expires_at) values ($1, $2, $3, $4)', [
      c.jti,
      c.agentId,
      c.userId,
      c.expiresAt,
    ]);
  }

  /** Marks the code used if it is unused and unexpired (compare-and-set); returns its user, or undefined. */
  async use(jti: string, agentId: string, now: Date): Promise<number | undefined> {
    const { rows } = await this.db.query<{ user_id: string }>(
      `update embed_codes set used_at = $3 where jti = $1 and agent_id = $2 and used_at is null and expires_at > $3 returning user_id`,
      [jti, agentId, now],
    );
    return rows[0] ? Number(rows[0].user_id) : undefined;
  }
}

/** An agent as the fleet's operations read and write it. */
export interface AgentAdminRow extends AgentRow {
  country: string | null;
  deposit_by_payment: boolean;
  currencies: string[];
  version: number;
}

/** The agents table for the fleet's operations (create, versioned update). */
export class AgentsRepository {
  constructor(private readonly db: Queryable) {}

  async get(id: string): Promise<AgentAdminRow | undefined> {
    const { rows } = await this.db.query<AgentAdminRow>(
      'select id, name, origins, country, currencies, deposit_by_payment, version from agents where id = $1',
      [id],
    );
    return rows[0];
  }

  async list(): Promise<AgentAdminRow[]> {
    const { rows } = await this.db.query<AgentAdminRow>(
      'select id, name, origins, country, currencies, deposit_by_payment, version from agents order by id',
    );
    return rows;
  }

  /** Inserts a new agent; false when the id is taken. */
  async insert(a: Omit<AgentAdminRow, 'version'>, at: Date): Promise<boolean> {
    const res = await this.db.query(
      `insert into agents (id, name, origins, country, currencies, deposit_by_payment, updated_at) values ($1, $2, $3, $4, $5, $6, $7)
        on conflict (id) do nothing`,
      [a.id, a.name, a.origins, a.country, a.currencies, a.deposit_by_payment, at],
    );
    return res.rowCount === 1;
  }

  /** Writes the agent if it is still at `version` (compare-and-set); the new row, or undefined when stale. */
  async update(a: Omit<AgentAdminRow, 'version'>, version: number, at: Date): Promise<AgentAdminRow | undefined> {
    const { rows } = await this.db.query<AgentAdminRow>(
      `update agents set name = $2, origins = $3, country = $4, currencies = $5, deposit_by_payment = $8, version = version + 1, updated_at = $7
        where id = $1 and version = $6 returning id, name, origins, country, currencies, deposit_by_payment, version`,
      [a.id, a.name, a.origins, a.country, a.currencies, version, at, a.deposit_by_payment],
    );
    return rows[0];
  }
}
