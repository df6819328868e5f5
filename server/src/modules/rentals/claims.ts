// "I returned it": from an open or charged (bought-out) order the rider says where and about when the power bank
// went back. The cabinets' own records decide: a `returned` of that power bank anywhere after it was taken, or a
// "return detected but no power bank" slot anomaly at the named cabinet within two hours of the time given, settles
// the order at the cabinet's time through the ordinary return (the fee recomputed; a card hold captured down to it, a
// bought-out order's difference refunded — the charge lifecycle's jobs). No such record opens a dispute for the desk,
// with what the records said (the cabinet's liveness at the time among it); the rider sees its state. One open
// dispute per order; at most CLAIMS_PER_HOUR claims per rider an hour.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import type { ReturnEvidenceRepository } from '../cabinets/evidence-repository.ts';
import { ClaimsRepository, type DisputeRow } from './claims-repository.ts';
import { BUY_OUT_FROM, Zujie } from './order-state.ts';
import type { OrderRow, RentalsRepository } from './repository.ts';
import type { RentalsService } from './service.ts';

/**
 * An order a claim can settle: open (renting, fault), or charged by the overtime buy-out and not back (the buy-out
 * settles an order in its state, order-state.ts BUY_OUT_FROM: a match reverses it, less the rent until the cabinet's
 * time, never more than was taken: returning.ts refundRent).
 */
function claimable(o: OrderRow): o is OrderRow & { borrowed_at: Date; powerbank_id: string } {
  if (!o.borrowed_at || !o.powerbank_id || o.returned_at) return false;
  if (o.bought_out_at) return BUY_OUT_FROM.includes(o.zujie as never);
  return !o.settled && (o.zujie === Zujie.renting || o.zujie === Zujie.fault);
}

/** The grace period for a rider with nowhere to return is served with the claims (claim-routes.ts). */
export { GraceService } from './grace.ts';

export const CLAIMS_PER_HOUR = 5;
/** How far from the time the rider gives a slot anomaly still counts. */
export const ANOMALY_WINDOW_MS = 2 * 3_600_000;

export interface ClaimsDeps {
  db: Db;
  clock: Clock;
  rentals: RentalsService;
  orders: RentalsRepository;
  /** A cabinet by id (the cabinets module's). */
  cabinets: { find(id: string): Promise<{ id: string } | undefined> };
  evidence: ReturnEvidenceRepository;
}

export class ClaimsService {
  readonly repo: ClaimsRepository;
  constructor(private readonly d: ClaimsDeps) {
    this.repo = new ClaimsRepository(d.db);
  }

  async claim(user: UserRow, input: { orderId: string; cabinetId: string; at: string }): Promise<DisputeRow> {
    const order = await this.d.rentals.check(user, input.orderId);
    const now = this.d.clock.now();
    if (!claimable(order)) throw conflict('error.claim.notOpen');
    const at = new Date(input.at);
    if (Number.isNaN(at.getTime()) || at < new Date(order.borrowed_at) || at.getTime() > now.getTime() + 5 * 60_000)
      throw badRequest('error.claim.time');
    const cabinet = await this.d.cabinets.find(input.cabinetId);
    if (!cabinet) throw notFound('error.cabinetNotFound');
    if (await this.repo.hasOpen(order.id)) throw conflict('error.claim.open');
    if ((await this.repo.countSince(user.id, new Date(now.getTime() - 3_600_000))) >= CLAIMS_PER_HOUR)
      throw new AppError(429, 'error.claim.tooMany');

    const returned = await this.d.evidence.returned(order.powerbank_id, new Date(order.borrowed_at));
    const anomaly = await this.d.evidence.returnWithoutPowerBank(
      cabinet.id,
      new Date(at.getTime() - ANOMALY_WINDOW_MS),
      new Date(at.getTime() + ANOMALY_WINDOW_MS),
    );
    const live = await this.d.evidence.liveness(cabinet.id);
    const evidence = {
      returned: returned ? { ...returned, at: returned.at.toISOString() } : null,
      anomaly: anomaly ? { ...anomaly, at: anomaly.at.toISOString() } : null,
      cabinet: {
        online: live?.online ?? false,
        lastSeenAt: live?.last_seen_at ? new Date(live.last_seen_at).toISOString() : null,
        silentAtClaim: !live?.last_seen_at || new Date(live.last_seen_at) < at,
      },
    };
    return this.d.db.tx(async () => {
      // Under the order's lock: a claim that raced this one and settled it leaves nothing to claim (409, no refund twice).
      const locked = await this.d.orders.find(order.id, { lock: true });
      if (!locked || !claimable(locked)) throw conflict('error.claim.notOpen');
      const match = returned ?? (anomaly ? { cabinetId: cabinet.id, at: anomaly.at, slot: anomaly.slot } : undefined);
      if (match)
        await this.d.rentals.onReturned(match.cabinetId, {
          slot: match.slot,
          powerbankId: order.powerbank_id!,
          ts: match.at.toISOString(),
        });
      const row = await this.repo.insert({
        order_id: order.id,
        user_id: user.id,
        cabinet_id: cabinet.id,
        claimed_at: at,
        state: match ? 'matched' : 'open',
        evidence,
        created_at: now,
      });
      if (!row) throw conflict('error.claim.open');
      return row;
    });
  }

  /** The order's latest claim (its owner's), or null. */
  async latest(user: UserRow, orderId: string) {
    await this.d.rentals.check(user, orderId);
    return (await this.repo.latest(orderId)) ?? null;
  }
}
