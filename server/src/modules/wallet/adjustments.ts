// Wallet credits and debits by the back office, under four eyes (docs/payments.md "Wallet adjustments"): a member of
// staff with wallet.adjust requests one (a rider's wallet with one agent, amount, currency, reason); a different
// member of staff with wallet.approve approves it, and only then does the money move, in the same unit of work as
// the decision: one ledger transfer between the rider's wallet and the platform's adjustments account of that agent
// (a debit never overdraws the wallet: 422). Or they reject it, with a reason. The requester can never decide their
// own request (403). The request is idempotent per requester and key; a decision under the request's row lock is
// made once: the same decision repeated by its maker answers the row as it is, any other second decision is a 409
// naming who decided. Each step is audited (entity wallet_adjustment) with its reason; the rider's open wallet
// screen is told when money moved. Outside the caller's agents, a request or a rider is a 404.
import { inScope, type Scope } from '#core/opsAccess.ts';
import type {
  AdjustmentItem,
  AdjustmentListQuery,
  AdjustmentPage,
  AdjustmentRequest,
} from '#contract/ops/adjustments.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { sha256 } from '../../lib/ids.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { PLATFORM, userOwner, type LedgerService } from '../ledger/service.ts';
import type { LiveService } from '../live/service.ts';
import type { AdjustmentRow, AdjustmentsRepository } from './adjustments-repository.ts';

/** The ledger code of an approved adjustment's transfer (the rider's transactions show it). */
export const ADJUSTMENT_CODE = 'wallet_adjustment';
const KEY = /^[\w-]{8,100}$/;

export interface AdjustmentsDeps {
  db: Db;
  clock: Clock;
  repo: AdjustmentsRepository;
  ledger: LedgerService;
  /** The agents a rider has an account with (the ledger's): the rider's scope. */
  agentsOfUser(userId: string): Promise<string[]>;
  audit: Pick<AuditService, 'record'>;
  live: Pick<LiveService, 'publish'>;
}

export class WalletAdjustments {
  constructor(private readonly d: AdjustmentsDeps) {}

  async list(scope: Scope, q: AdjustmentListQuery): Promise<AdjustmentPage> {
    const after = decodeCursor(q.cursor);
    if (after && Number.isNaN(Date.parse(after[0]))) throw badRequest('ops.error.cursor');
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.page({
      state: q.state === 'all' ? null : (q.state ?? 'pending'),
      userId: q.riderId ? Number(q.riderId) : null,
      agents: scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [],
      after,
      limit: limit + 1,
    });
    return pageOf(rows, limit, (r) => [new Date(r.created_at).toISOString(), r.id], item);
  }

  async get(scope: Scope, id: string): Promise<AdjustmentItem> {
    const row = await this.d.repo.find(id);
    if (!row || !inScope(scope, row.agent_id)) throw notFound('ops.error.notFound');
    return item(row);
  }

  /** A request, once per requester and `key` (a retry answers the stored request; the key with other values is a 422). */
  async request(scope: Scope, actor: Actor, body: AdjustmentRequest, key: string | undefined): Promise<AdjustmentItem> {
    const k = key?.trim();
    if (!k || !KEY.test(k)) throw badRequest('ops.error.idempotencyKey');
    if (!actor.staffId) throw new AppError(403, 'ops.error.forbidden');
    const hash = sha256(
      JSON.stringify({ r: body.riderId, a: body.agentId, c: body.currency, d: body.direction, m: body.amount }),
    );
    return this.d.db.tx(async () => {
      const prior = await this.d.repo.byKey(actor.staffId!, k);
      if (prior) {
        if (prior.request_hash !== hash) throw refused('ops.error.keyReused');
        return item(prior);
      }
      if (!inScope(scope, body.agentId) || !(await this.d.agentsOfUser(body.riderId)).includes(body.agentId))
        throw notFound('ops.error.notFound');
      const row = await this.d.repo.insert({
        user_id: Number(body.riderId),
        agent_id: body.agentId,
        currency: body.currency,
        direction: body.direction,
        amount: body.amount,
        reason: actor.reason ?? body.reason,
        requested_by: actor.staffId!,
        requested_email: whoOf(actor),
        idempotency_key: k,
        request_hash: hash,
        created_at: this.d.clock.now(),
      });
      await this.d.audit.record(actor, {
        action: 'wallet_adjustment.request',
        entity: 'wallet_adjustment',
        entityId: row.id,
        agentId: row.agent_id,
        before: null,
        after: snapshot(row),
      });
      return item(row);
    });
  }

  approve(scope: Scope, actor: Actor, id: string) {
    return this.decide(scope, actor, id, 'approved');
  }

  reject(scope: Scope, actor: Actor, id: string) {
    return this.decide(scope, actor, id, 'rejected');
  }

  private async decide(scope: Scope, actor: Actor, id: string, to: 'approved' | 'rejected'): Promise<AdjustmentItem> {
    const done = await this.d.db.tx(async () => {
      const row = await this.d.repo.find(id, { lock: true });
      if (!row || !inScope(scope, row.agent_id)) throw notFound('ops.error.notFound');
      if (row.requested_by === actor.staffId) throw new AppError(403, 'ops.error.adjustment.own');
      if (row.state !== 'pending') {
        if (row.state === to && row.decided_by === actor.staffId) return { row, moved: false };
        throw conflict('ops.error.adjustment.decided', { by: row.decided_email ?? '?' });
      }
      const now = this.d.clock.now();
      let transferId: string | null = null;
      if (to === 'approved') {
        const w = this.d.ledger;
        const wallet = await w.account(userOwner(row.user_id), 'wallet', row.currency, row.agent_id);
        const platform = await w.account(PLATFORM, 'adjustments', row.currency, row.agent_id);
        transferId =
          row.direction === 'credit'
            ? await w.transfer({ debit: platform, credit: wallet, amount: row.amount, code: ADJUSTMENT_CODE, at: now })
            : await w
                .transfer({
                  debit: wallet,
                  credit: platform,
                  amount: row.amount,
                  code: ADJUSTMENT_CODE,
                  at: now,
                  mustNotOverdraw: true,
                })
                .catch((e: unknown) => {
                  // The ledger's refusal speaks to a rider paying a deposit; the person approving is told what it means here.
                  throw e instanceof AppError && e.key === 'error.insufficientBalance'
                    ? refused('ops.error.adjustment.balance')
                    : e;
                });
      }
      await this.d.repo.decide(id, {
        state: to,
        by: actor.staffId!,
        email: whoOf(actor),
        note: actor.reason ?? '',
        transferId,
        at: now,
      });
      const after = (await this.d.repo.find(id))!;
      await this.d.audit.record(actor, {
        action: to === 'approved' ? 'wallet_adjustment.approve' : 'wallet_adjustment.reject',
        entity: 'wallet_adjustment',
        entityId: id,
        agentId: row.agent_id,
        before: snapshot(row),
        after: snapshot(after),
      });
      if (transferId) await this.d.live.publish(row.user_id, { kind: 'wallet' });
      return { row: after, moved: transferId != null };
    });
    return item(done.row);
  }
}

const whoOf = (a: Actor) => a.email ?? `staff:${a.staffId ?? '?'}`;

const snapshot = (r: AdjustmentRow) => ({
  rider: String(r.user_id),
  direction: r.direction,
  amount: r.amount,
  currency: r.currency,
  state: r.state,
  transferId: r.transfer_id,
});

function item(r: AdjustmentRow): AdjustmentItem {
  return {
    id: r.id,
    riderId: String(r.user_id),
    agentId: r.agent_id,
    direction: r.direction,
    amount: r.amount,
    currency: r.currency,
    reason: r.reason,
    state: r.state,
    requestedBy: r.requested_email,
    createdAt: new Date(r.created_at).toISOString(),
    ...(r.decided_email ? { decidedBy: r.decided_email } : {}),
    ...(r.decided_at ? { decidedAt: new Date(r.decided_at).toISOString() } : {}),
    ...(r.decision_note ? { decisionNote: r.decision_note } : {}),
    ...(r.transfer_id ? { transferId: r.transfer_id } : {}),
  };
}
