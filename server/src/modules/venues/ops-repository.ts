// The venues list of the ops API: filtered, sorted and cut into keyset pages, inside the caller's scope (an
// agent's venues; a venue partner's own venues only). Venues without an agent are the platform's.
import type { Scope } from '#core/opsAccess.ts';
import type { Queryable } from '../../db/db.ts';
import { likeOf, orderBy, scopeFlags, type SortSpec } from '../../lib/ops-query.ts';
import type { VenueAdminRow } from './admin-repository.ts';

const VENUE_SORT: SortSpec = { name: 'lower(name)', city: 'lower(city)', state: 'state', id: 'id' };

/** A scope as SQL parameters: everything, whole agents, and agent/venue pairs of venue partners. */
export interface VenueListFilter {
  scope: Scope;
  q?: string;
  state?: string;
  agentId?: string;
  sort?: string;
  after?: [string, string];
  limit: number;
}

export class VenuesOpsRepository {
  constructor(private readonly db: Queryable) {}

  async list(f: VenueListFilter): Promise<Array<VenueAdminRow & { sort_key: string }>> {
    const order = orderBy(VENUE_SORT, f.sort, 'id');
    const s = scopeFlags(f.scope);
    const params: unknown[] = [s.all, s.agents, s.pairs, likeOf(f.q), f.state ?? null, f.agentId ?? null, f.limit];
    const after = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, id) ${order.desc ? '<' : '>'} ($8, $9)`)
      : '';
    const { rows } = await this.db.query<VenueAdminRow & { sort_key: string }>(
      `select *, ${order.key}::text as sort_key from venues
        where ($1 or agent_id = any($2::text[]) or (agent_id || '/' || id) = any($3::text[]))
          and ($4::text is null or lower(name) like $4 or lower(city) like $4 or lower(id) like $4)
          and ($5::text is null or state = $5) and ($6::text is null or agent_id = $6)
          ${after}
        order by ${order.sql} limit $7`,
      params,
    );
    return rows.map((r) => ({ ...r, currency: r.currency.trim(), lat: Number(r.lat), lng: Number(r.lng) }));
  }

  /** Sets a venue's logo or banner URL if it is still at `version`: the new version, or undefined when stale. */
  async setImage(
    id: string,
    version: number,
    kind: 'logo' | 'banner',
    url: string,
    at: Date,
  ): Promise<number | undefined> {
    const col = kind === 'logo' ? 'logo_url' : 'banner_url';
    const { rows } = await this.db.query<{ version: number }>(
      `update venues set ${col} = $3, version = version + 1, updated_at = $4 where id = $1 and version = $2 returning version`,
      [id, version, url, at],
    );
    return rows[0]?.version;
  }

  /** Locks a price plan's row for the rest of the unit of work (a save compares what was read under it). */
  async lockPlan(id: number): Promise<void> {
    await this.db.query('select 1 from price_plans where id = $1 for update', [id]);
  }
}
