// The support desk's search of riders (docs/operations.md "Support desk"): by id, phone, e-mail, a card's last 4,
// state (blocked or not) and when they signed up; newest first in keyset pages, the CSV export page by page. A rider
// is inside a person's scope when they are a customer of one of the person's agents (riders-repository.ts
// customerOfSql; platform-wide: every rider; rider-blocks.ts reads one rider by the same rule).
import type { RiderExportQuery, RiderListQuery, RiderSummary } from '#contract/ops/search.ts';
import type { Scope } from '#core/opsAccess.ts';
import { csvPages } from '../../lib/csv.ts';
import { decodeCursor, pageOf, type RidersNamed } from '../../lib/ops-query.ts';
import type { RiderSearch, RiderSearchRow, RidersRepository } from './riders-repository.ts';

export const RIDER_CSV_COLUMNS = ['id', 'created_at', 'kind', 'name', 'email', 'mobile', 'blocked', 'agents'] as const;
const cursorOf = (r: RiderSearchRow): [string, string] => [new Date(r.created_at).toISOString(), String(r.id)];

/** The agents whose every rider the scope sees (null: every agent; a venue partner's agents: none). */
export function riderAgents(s: Scope): string[] | null {
  if (s.kind === 'all') return null;
  if (s.kind === 'none') return [];
  return s.agents.filter((a) => s.venues[a] === undefined);
}

export class RiderSearchService {
  constructor(private readonly d: { riders: RidersRepository; named: RidersNamed }) {}

  private async searchOf(scope: Scope, q: RiderExportQuery): Promise<RiderSearch> {
    const text = q.q?.trim();
    return {
      agents: riderAgents(scope),
      qUsers: text ? await this.d.riders.matching({ any: text }) : null,
      userIds: await this.d.named(q),
      ...(q.state ? { blocked: q.state === 'blocked' } : {}),
      ...(q.from ? { from: new Date(q.from) } : {}),
      ...(q.to ? { to: new Date(q.to) } : {}),
    };
  }

  private async summaries(rows: RiderSearchRow[]): Promise<RiderSummary[]> {
    const agents = await this.d.riders.agentsOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: String(r.id),
      kind: r.kind,
      name: r.name,
      ...(r.email ? { email: r.email } : {}),
      ...(r.mobile ? { mobile: r.mobile } : {}),
      createdAt: new Date(r.created_at).toISOString(),
      blocked: r.blocked_at != null,
      agents: agents.get(r.id) ?? [],
    }));
  }

  async list(scope: Scope, q: RiderListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.riders.search(await this.searchOf(scope, q), decodeCursor(q.cursor), limit + 1);
    const page = pageOf(rows, limit, cursorOf, (r) => r);
    return { items: await this.summaries(page.items), ...(page.next ? { next: page.next } : {}) };
  }

  async csv(scope: Scope, q: RiderExportQuery) {
    const search = await this.searchOf(scope, q);
    return csvPages({
      columns: RIDER_CSV_COLUMNS,
      page: (after, limit) => this.d.riders.search(search, after, limit),
      cursorOf,
      records: async (rows) =>
        (await this.summaries(rows)).map((r) => [
          r.id,
          r.createdAt,
          r.kind,
          r.name,
          r.email,
          r.mobile,
          r.blocked,
          r.agents.join(' '),
        ]),
    });
  }
}
