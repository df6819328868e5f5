// The support desk putting a rental right (docs/operations.md "Putting a rental right"): end a stuck rental, waive a
// debt, release a deposit hold, reverse a buy-out. Each is one unit of work under the order's row lock, like a refund
// (ops-refund.ts): the rental inside the caller's scope (else 404), the idempotency key (a replay answers the stored
// correction; the key with other values is a 422), the version the person read (If-Match: someone else's correction
// in between is a 409), the rentals service's use case (desk-settling.ts: the order and the money move as in the
// cabinet-driven flows, through the ledger and the charge lifecycle), the correction's row and the audit entry with
// the reason. Each action has its own permission (the route's).
import type { Scope } from '#core/opsAccess.ts';
import type { RentalAction, RentalActionResult } from '#contract/ops/rentals.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, notFound, refused } from '../../lib/errors.ts';
import { sha256, uuid } from '../../lib/ids.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { rentalScope } from './ops-desk.ts';
import type { CorrectionRow, RentalListRow, RentalsOpsRepository } from './ops-repository.ts';
import type { RentalsService } from './service.ts';

const KEY = /^[\w-]{8,100}$/;

export interface ActionDeps {
  db: Db;
  clock: Clock;
  repo: RentalsOpsRepository;
  rentals: Pick<RentalsService, 'endByDesk' | 'reverseBuyOutByDesk' | 'releaseHoldByDesk' | 'waiveDebtByDesk'>;
  audit: Pick<AuditService, 'record'>;
}

interface Effect {
  amount: number;
  toCard: number;
  toWallet: number;
  state: number;
  after: Record<string, unknown>;
}

export class RentalActions {
  constructor(private readonly d: ActionDeps) {}

  end(scope: Scope, actor: Actor, orderId: string, at: Date, h: { key: string | undefined; version: number }) {
    return this.act(scope, actor, orderId, 'end', { at: at.toISOString() }, h, async (o) => {
      const r = await this.d.rentals.endByDesk(o.id, at);
      return {
        amount: r.fee,
        toCard: 0,
        toWallet: 0,
        state: r.state,
        after: { state: r.state, fee: r.fee, endedAt: at.toISOString() },
      };
    });
  }

  reverseBuyOut(
    scope: Scope,
    actor: Actor,
    orderId: string,
    at: Date,
    h: { key: string | undefined; version: number },
  ) {
    return this.act(scope, actor, orderId, 'reverse', { at: at.toISOString() }, h, async (o, id) => {
      const r = await this.d.rentals.reverseBuyOutByDesk(o.id, at, `desk_${id}`);
      return {
        amount: r.refund,
        toCard: r.split.card,
        toWallet: r.split.wallet,
        state: r.state,
        after: {
          state: r.state,
          fee: Number(o.fee ?? 0) - r.refund,
          refund: r.refund,
          to: r.to,
          debtLowered: r.split.debt,
          returnedAt: at.toISOString(),
        },
      };
    });
  }

  releaseHold(scope: Scope, actor: Actor, orderId: string, h: { key: string | undefined; version: number }) {
    return this.act(scope, actor, orderId, 'release', {}, h, async (o) => {
      const r = await this.d.rentals.releaseHoldByDesk(o.id);
      return {
        amount: Number(o.deposit),
        toCard: 0,
        toWallet: 0,
        state: o.zujie,
        after: { ledgerHoldVoided: r.ledger, cardReleased: r.card },
      };
    });
  }

  waiveDebt(scope: Scope, actor: Actor, orderId: string, h: { key: string | undefined; version: number }) {
    return this.act(scope, actor, orderId, 'waive', {}, h, async (o) => {
      const debt = await this.d.rentals.waiveDebtByDesk(o.id);
      return {
        amount: debt,
        toCard: 0,
        toWallet: 0,
        state: o.zujie,
        after: { debt: 0, waived: debt, fee: Math.max(0, Number(o.fee ?? 0) - debt) },
      };
    });
  }

  private async act(
    scope: Scope,
    actor: Actor,
    orderId: string,
    kind: RentalAction,
    params: Record<string, unknown>,
    h: { key: string | undefined; version: number },
    run: (o: RentalListRow, correctionId: string) => Promise<Effect>,
  ): Promise<RentalActionResult> {
    const key = h.key?.trim();
    if (!key || !KEY.test(key)) throw badRequest('ops.error.idempotencyKey');
    const hash = sha256(JSON.stringify({ kind, ...params }));
    return this.d.db.tx(async () => {
      const o = await this.d.repo.inScope(orderId, rentalScope(scope), { lock: true });
      if (!o) throw notFound('ops.error.notFound');
      const prior = await this.d.repo.correctionByKey(orderId, key);
      if (prior) {
        if (prior.request_hash !== hash) throw refused('ops.error.keyReused');
        return result(prior, o.zujie);
      }
      if ((await this.d.repo.corrections(orderId)).length !== h.version) throw staleVersion();
      const id = `cor_${uuid()}`;
      const e = await run(o, id);
      const row: CorrectionRow = {
        id,
        order_id: orderId,
        idempotency_key: key,
        request_hash: hash,
        kind,
        amount: e.amount,
        currency: o.currency.trim(),
        to_card: e.toCard,
        to_wallet: e.toWallet,
        payment_id: e.toCard > 0 ? o.payment_id : null,
        staff_id: actor.staffId,
        reason: actor.reason ?? '',
        created_at: this.d.clock.now(),
      };
      await this.d.repo.insertCorrection(row);
      await this.d.audit.record(actor, {
        action: `rental.${kind}`,
        entity: 'rental',
        entityId: orderId,
        agentId: o.agent_id,
        before: { state: o.zujie, settled: o.settled, fee: Number(o.fee ?? 0), debt: Number(o.debt ?? 0) },
        after: { ...e.after, correction: id },
      });
      return result(row, e.state);
    });
  }
}

function result(r: CorrectionRow, state: number): RentalActionResult {
  return {
    id: r.id,
    orderId: r.order_id,
    kind: r.kind as RentalAction,
    amount: r.amount,
    currency: r.currency,
    toCard: r.to_card,
    toWallet: r.to_wallet,
    state,
  };
}
