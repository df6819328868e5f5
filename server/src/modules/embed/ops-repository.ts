// The agents list of the ops API: filtered, sorted and cut into keyset pages inside the caller's scope.
import type { Scope } from '#core/opsAccess.ts';
import type { Queryable } from '../../db/db.ts';
import { orderBy, type SortSpec } from '../../lib/ops-query.ts';
import { likeOf, scopeFlags } from '../../lib/ops-query.ts';
import type { AgentAdminRow } from './repository.ts';

const AGENT_SORT: SortSpec = { name: 'lower(name)', id: 'id' };

export class AgentsOpsRepository {
  constructor(private readonly db: Queryable) {}

  async list(f: {
    scope: Scope;
    q?: string;
    sort?: string;
    after?: [string, string];
    limit: number;
  }): Promise<Array<AgentAdminRow & { sort_key: string }>> {
    const order = orderBy(AGENT_SORT, f.sort, 'id');
    const s = scopeFlags(f.scope);
    // A venue partner's agent too (read-only: the embed's setup).
    const params: unknown[] = [s.all, f.scope.kind === 'agents' ? f.scope.agents : s.agents, likeOf(f.q), f.limit];
    const more = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, id) ${order.desc ? '<' : '>'} ($5, $6)`)
      : '';
    const { rows } = await this.db.query<AgentAdminRow & { sort_key: string }>(
      `select id, name, origins, country, currencies, deposit_by_payment, version, ${order.key}::text as sort_key from agents
        where ($1 or id = any($2::text[])) and ($3::text is null or lower(name) like $3 or lower(id) like $3) ${more}
        order by ${order.sql} limit $4`,
      params,
    );
    return rows;
  }
}
