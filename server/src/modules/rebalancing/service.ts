// Rebalancing for field technicians (docs/operations.md "Rebalancing"): the cabinets of the caller's scope with too
// many or too few power banks, the suggested moves (plan.ts), and marking a move done (audited with its reason).
// Cabinets and agents outside the scope are a 404.
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { scopeParams } from '../../lib/ops-query.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { balanceOf, suggestMoves, target, type Bands } from './plan.ts';
import { RebalancingRepository, type MoveRow } from './repository.ts';

/** A move done counts as made for a day at most (a cabinet that never reports again does not hold it forever). */
export const IN_TRANSIT_MS = 86_400_000;
export const DEFAULT_BANDS: Bands = { lowPct: 25, highPct: 75 };
const DONE_LISTED = 50;

export interface RebalancingDeps {
  db: Db;
  clock: Clock;
  liveness: { since(): Date };
  audit: AuditService;
  repo?: RebalancingRepository;
}

export const toMoveDone = (m: MoveRow) => ({
  id: m.id,
  agentId: m.agent_id,
  from: m.from_cabinet,
  to: m.to_cabinet,
  powerbanks: Number(m.powerbanks),
  doneBy: m.done_by,
  doneAt: new Date(m.done_at).toISOString(),
  reason: m.reason,
});

export class Rebalancing {
  private readonly repo: RebalancingRepository;

  constructor(private readonly d: RebalancingDeps) {
    this.repo = d.repo ?? new RebalancingRepository(d.db);
  }

  private agentIn(scope: Scope, agentId: string | undefined) {
    if (agentId && scope.kind !== 'all' && !(scope.kind === 'agents' && scope.agents.includes(agentId)))
      throw notFound('error.notFound');
    return agentId ?? null;
  }

  /** Every cabinet of the scope (of one agent, when given) with its position, stock and whether it is online: the dashboard's map. */
  async stock(scope: Scope, agentId: string | null) {
    const since = new Date(this.d.clock.now().getTime() - IN_TRANSIT_MS);
    return (await this.repo.stock(scopeParams(scope), agentId, this.d.liveness.since(), since)).map((r) => ({
      id: r.id,
      agentId: r.agent_id,
      venueId: r.venue_id,
      lat: r.lat,
      lng: r.lng,
      slots: r.slots,
      powerbanks: r.powerbanks,
      online: r.online,
    }));
  }

  /** The cabinets out of balance, the suggested moves and the moves done in the last day. */
  async view(scope: Scope, q: { agentId?: string; lowPct?: number; highPct?: number }) {
    const bands: Bands = { lowPct: q.lowPct ?? DEFAULT_BANDS.lowPct, highPct: q.highPct ?? DEFAULT_BANDS.highPct };
    if (bands.lowPct >= bands.highPct) throw badRequest('error.rebalancing.bands');
    const agent = this.agentIn(scope, q.agentId);
    const p = scopeParams(scope);
    const since = new Date(this.d.clock.now().getTime() - IN_TRANSIT_MS);
    const [stock, done] = await Promise.all([
      this.repo.stock(p, agent, this.d.liveness.since(), since),
      this.repo.done(p, agent, since, DONE_LISTED),
    ]);
    const cabinets = stock.map((r) => ({
      id: r.id,
      agentId: r.agent_id,
      venueId: r.venue_id,
      venueName: r.venue_name,
      lat: r.lat,
      lng: r.lng,
      slots: r.slots,
      powerbanks: r.powerbanks,
      online: r.online,
      balance: balanceOf(r, bands),
      target: target(r),
    }));
    const moves = suggestMoves(cabinets, bands);
    return {
      ...bands,
      cabinets: cabinets.filter((c) => c.balance !== 'ok'),
      moves,
      done: done.map(toMoveDone),
    };
  }

  /** A technician moved `powerbanks` from one cabinet to another of the same agent. */
  async markDone(scope: Scope, actor: Actor, input: { from: string; to: string; powerbanks: number }) {
    if (input.from === input.to) throw badRequest('error.rebalancing.same');
    const [from, to] = await Promise.all([this.repo.cabinet(input.from), this.repo.cabinet(input.to)]);
    for (const [c, id] of [
      [from, input.from],
      [to, input.to],
    ] as const) {
      if (!c || !c.venue_id || !inScope(scope, c.agent_id, c.venue_id)) throw notFound('error.fleet.notFound', { id });
    }
    const agentId = from!.agent_id ?? 'powerly';
    if ((to!.agent_id ?? 'powerly') !== agentId) throw badRequest('error.rebalancing.agents');
    if (input.powerbanks > from!.slots) throw badRequest('error.rebalancing.count', { max: from!.slots });
    return this.d.db.tx(async () => {
      const row = await this.repo.insertMove({
        agent_id: agentId,
        from_cabinet: input.from,
        to_cabinet: input.to,
        powerbanks: input.powerbanks,
        done_by: actor.email ?? actor.staffId ?? 'staff',
        done_at: this.d.clock.now(),
        reason: actor.reason ?? '',
      });
      await this.d.audit.record(actor, {
        action: 'rebalance_move.done',
        entity: 'rebalance_move',
        entityId: row.id,
        agentId: agentId === 'powerly' ? null : agentId,
        after: toMoveDone(row),
      });
      return toMoveDone(row);
    });
  }
}
