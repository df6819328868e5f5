// The disputes queue (docs/operations.md "Disputes"): riders' "I returned it" claims the cabinets' records did not
// confirm (claims.ts opened them with the evidence of the time), inside the caller's agents and venues (else 404).
// Accepting one ends its rental at the time given (the rider's, unless the person chose another from the evidence),
// or reverses its buy-out, through the rentals service's desk use cases (desk-settling.ts: the fee by the plan, the
// charge lifecycle, the ledger); rejecting one changes no money. Both carry the message the rider sees and the
// desk's evidence note, in one unit of work under the dispute's and the order's locks with the audit entry (in the
// rental's timeline). A dispute is decided once: the same decision repeated by its maker answers it as it is; any
// other second decision is a 409 naming who decided.
import type { Scope } from '#core/opsAccess.ts';
import type { DisputeDecision, DisputeItem, DisputeListQuery, DisputePage } from '#contract/ops/disputes.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { LiveService } from '../live/service.ts';
import type { DeskDisputeRow, DisputesOpsRepository } from './disputes-ops-repository.ts';
import { rentalScope } from './ops-desk.ts';
import { BUY_OUT_FROM } from './order-state.ts';
import type { RentalsRepository } from './repository.ts';
import type { RentalsService } from './service.ts';

export interface DisputeDeskDeps {
  db: Db;
  clock: Clock;
  repo: DisputesOpsRepository;
  orders: Pick<RentalsRepository, 'find'>;
  rentals: Pick<RentalsService, 'endByDesk' | 'reverseBuyOutByDesk'>;
  audit: Pick<AuditService, 'record'>;
  live: Pick<LiveService, 'publish'>;
}

export class DisputeDesk {
  constructor(private readonly d: DisputeDeskDeps) {}

  async list(scope: Scope, q: DisputeListQuery): Promise<DisputePage> {
    const after = decodeCursor(q.cursor);
    if (after && Number.isNaN(Date.parse(after[0]))) throw badRequest('ops.error.cursor');
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.page(rentalScope(scope), {
      state: q.state === 'all' ? null : (q.state ?? 'open'),
      cabinetId: q.cabinetId,
      userId: q.riderId ? Number(q.riderId) : undefined,
      after,
      limit: limit + 1,
    });
    return pageOf(rows, limit, (r) => [new Date(r.created_at).toISOString(), String(r.id)], item);
  }

  async get(scope: Scope, id: string): Promise<DisputeItem> {
    const row = await this.d.repo.inScope(id, rentalScope(scope));
    if (!row) throw notFound('ops.error.notFound');
    return item(row);
  }

  accept(scope: Scope, actor: Actor, id: string, body: DisputeDecision) {
    return this.decide(scope, actor, id, 'accepted', body);
  }

  reject(scope: Scope, actor: Actor, id: string, body: DisputeDecision) {
    return this.decide(scope, actor, id, 'rejected', body);
  }

  private async decide(
    scope: Scope,
    actor: Actor,
    id: string,
    to: 'accepted' | 'rejected',
    body: DisputeDecision,
  ): Promise<DisputeItem> {
    const done = await this.d.db.tx(async () => {
      const row = await this.d.repo.inScope(id, rentalScope(scope), { lock: true });
      if (!row) throw notFound('ops.error.notFound');
      if (row.state !== 'open') {
        if (row.state === to && row.decided_by != null && String(row.decided_by) === String(actor.staffId)) return row;
        throw conflict('ops.error.dispute.decided', { by: row.decided_email ?? '?' });
      }
      let effect: Record<string, unknown> = {};
      if (to === 'accepted') {
        const order = (await this.d.orders.find(row.order_id, { lock: true }))!;
        const now = this.d.clock.now();
        const at = body.at ? new Date(body.at) : new Date(Math.min(new Date(row.claimed_at).getTime(), now.getTime()));
        if (order.bought_out_at && BUY_OUT_FROM.includes(order.zujie as never)) {
          const r = await this.d.rentals.reverseBuyOutByDesk(order.id, at, `dispute_${row.id}`);
          effect = { reversed: r.refund, to: r.to, state: r.state };
        } else if (!order.settled && BUY_OUT_FROM.includes(order.zujie as never)) {
          const r = await this.d.rentals.endByDesk(order.id, at);
          effect = { ended: at.toISOString(), fee: r.fee, state: r.state };
        }
      }
      await this.d.repo.decide(id, {
        state: to,
        message: body.message.trim(),
        note: body.note.trim(),
        by: actor.staffId,
        email: actor.email ?? `staff:${actor.staffId ?? '?'}`,
        at: this.d.clock.now(),
      });
      const after = (await this.d.repo.inScope(id, rentalScope(scope)))!;
      await this.d.audit.record(actor, {
        action: to === 'accepted' ? 'dispute.accept' : 'dispute.reject',
        entity: 'rental',
        entityId: row.order_id,
        agentId: row.agent_id,
        before: { dispute: String(row.id), state: row.state },
        after: { dispute: String(row.id), state: to, message: after.message, note: after.note, ...effect },
      });
      await this.d.live.publish(row.user_id, { kind: 'order', orderId: row.order_id });
      return after;
    });
    return item(done);
  }
}

function item(r: DeskDisputeRow): DisputeItem {
  return {
    id: String(r.id),
    orderId: r.order_id,
    riderId: String(r.user_id),
    cabinetId: r.cabinet_id,
    claimedAt: new Date(r.claimed_at).toISOString(),
    state: r.state,
    rentalState: r.zujie,
    ...(r.powerbank_id ? { powerbankId: r.powerbank_id } : {}),
    evidence: (typeof r.evidence === 'string' ? JSON.parse(r.evidence) : r.evidence) as Record<string, unknown>,
    ...(r.message ? { message: r.message } : {}),
    ...(r.note ? { note: r.note } : {}),
    ...(r.decided_email ? { decidedBy: r.decided_email } : {}),
    createdAt: new Date(r.created_at).toISOString(),
    ...(r.decided_at ? { decidedAt: new Date(r.decided_at).toISOString() } : {}),
  };
}
